/*! The apiserver's own log beside an audit log: its requests are not counted again (the audit log counts them,
 * with their users) but kept as evidence per client, verb, resource and selector shape: the APF flow schema and
 * priority level httplog names, how many a trace showed and how many read etcd, what traces say they returned. The
 * report joins them to the audit's groups of the same key, and names those the audit log does not hold (a policy
 * that drops them). Mergeable; bounded by its keys. */

import type { AuditEvent } from '../model/audit-event.js';
import { parseRequestUri } from '../decode/request-uri.js';
import { describeSelectors } from '../model/selector.js';

/** What the log showed of one (verb, user agent, resource, selector shape). */
export interface LogEvidenceEntry {
  verb: string;
  userAgent: string;
  apiGroup: string;
  resource: string;
  selector: string;
  requests: number;
  httplog: number;
  trace: number;
  timeout: number;
  traced: number;
  observedEtcd: number;
  returnedSum: number;
  returnedN: number;
  /** flow schema → requests; its priority level */
  flowSchemas: Map<string, number>;
  priorityLevel: string;
}

/** Most keys kept; past it requests are counted in `overflow`. */
export const MAX_LOG_EVIDENCE_KEYS = 50_000;

/** The key the report joins on: verb (a watch-list is a list), user agent, group, resource, selector shape. */
export function logEvidenceKey(verb: string, userAgent: string, apiGroup: string, resource: string, selector: string): string {
  return `${verb}\u0000${userAgent}\u0000${apiGroup}\u0000${resource}\u0000${selector}`;
}

export class LogEvidence {
  readonly entries = new Map<string, LogEvidenceEntry>();
  overflow = 0;

  /** One request of the apiserver's log (e.evidence set): kept when it is a list or a get. */
  add(e: AuditEvent): void {
    const parsed = parseRequestUri(e.requestURI);
    const q = e.query ?? parsed.query;
    const verb = e.verb === 'watch' && q.sendInitialEvents ? 'list' : e.verb;
    // the report's groups are lists and gets: evidence for them, nothing else is kept
    if (verb !== 'list' && verb !== 'get') return;
    const resource = e.resource || parsed.path.resource;
    const apiGroup = e.apiGroup || parsed.path.apiGroup;
    const shape = describeSelectors(q.fieldSelector, q.labelSelector).shape;
    const k = logEvidenceKey(verb, e.userAgent, apiGroup, resource, shape);
    let x = this.entries.get(k);
    if (x === undefined) {
      if (this.entries.size >= MAX_LOG_EVIDENCE_KEYS) {
        this.overflow++;
        return;
      }
      x = { verb, userAgent: e.userAgent, apiGroup, resource, selector: shape, requests: 0, httplog: 0, trace: 0, timeout: 0, traced: 0, observedEtcd: 0, returnedSum: 0, returnedN: 0, flowSchemas: new Map(), priorityLevel: '' };
      this.entries.set(k, x);
    }
    x.requests++;
    x[e.evidence!]++;
    if (e.traced === true && e.evidence === 'httplog') x.traced++;
    if (e.observedEtcd === true) x.observedEtcd++;
    if (e.returnedItems !== null) {
      x.returnedSum += e.returnedItems;
      x.returnedN++;
    }
    if (e.apfFlowSchema !== undefined) {
      x.flowSchemas.set(e.apfFlowSchema, (x.flowSchemas.get(e.apfFlowSchema) ?? 0) + 1);
      x.priorityLevel = minLevel(x.priorityLevel, e.apfPriorityLevel ?? '');
    }
  }

  /** Folds another's entries in (a worker's, a partial's). Order-independent. */
  merge(entries: Map<string, LogEvidenceEntry>, overflow = 0): void {
    this.overflow += overflow;
    for (const [k, o] of entries) {
      const x = this.entries.get(k);
      if (x === undefined) {
        if (this.entries.size >= MAX_LOG_EVIDENCE_KEYS) {
          this.overflow += o.requests;
          continue;
        }
        this.entries.set(k, { ...o, flowSchemas: new Map(o.flowSchemas) });
        continue;
      }
      x.requests += o.requests;
      x.httplog += o.httplog;
      x.trace += o.trace;
      x.timeout += o.timeout;
      x.traced += o.traced;
      x.observedEtcd += o.observedEtcd;
      x.returnedSum += o.returnedSum;
      x.returnedN += o.returnedN;
      for (const [f, n] of o.flowSchemas) x.flowSchemas.set(f, (x.flowSchemas.get(f) ?? 0) + n);
      x.priorityLevel = minLevel(x.priorityLevel, o.priorityLevel);
    }
  }
}

/** The flow schema most of an entry's requests matched (ties: the first by name), or null. */
export function topFlowSchema(m: Map<string, number>): string | null {
  let best: string | null = null;
  let n = 0;
  for (const [f, c] of m) if (c > n || (c === n && best !== null && f < best)) [best, n] = [f, c];
  return best;
}

/** Of two priority levels ('' for none), the first by name: the same whatever order the requests came in. */
export function minLevel(a: string, b: string): string {
  if (a === '') return b;
  if (b === '') return a;
  return a < b ? a : b;
}
