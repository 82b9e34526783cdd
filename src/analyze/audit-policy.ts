/*! One job: the audit policy that keeps what audit-scan needs and drops the rest (issue 47 #2), as data: the
 * rules are written once, rendered as an audit.k8s.io/v1 Policy, and applied to the events of a log to say what
 * the policy would have written. First match wins, as in kube-apiserver (pkg/audit/policy/checker.go). */

import type { AuditEvent } from '../model/audit-event.js';
import { bump } from '../model/tally.js';

export type Level = 'None' | 'Metadata' | 'Request' | 'RequestResponse';

export interface PolicyRule {
  level: Level;
  /** why the rule is there, written above it in the YAML */
  why: string;
  users?: string[];
  verbs?: string[];
  resources?: Array<{ group: string; resources: string[]; resourceNames?: string[] }>;
  namespaces?: string[];
  nonResourceURLs?: string[];
}

/** The rules, in order. Reads (list, watch, get) carry the evidence: who lists what, how, how often, where it is
 * served; TokenRequests carry the token waves (their request body has the TTL, never the token, which is in the
 * response); the apiserver identity leases carry the restarts. No rule keeps a response body. */
export const POLICY_RULES: PolicyRule[] = [
  { level: 'None', why: 'health checks and metrics scrapes: volume, no evidence', nonResourceURLs: ['/healthz*', '/readyz*', '/livez*', '/metrics', '/version'] },
  {
    level: 'None',
    why: "kubelet heartbeats (a lease update every 10 s a node) and their gets: the largest share of a log's volume, and no list traffic",
    verbs: ['get', 'update', 'patch'],
    resources: [{ group: 'coordination.k8s.io', resources: ['leases'] }],
    namespaces: ['kube-node-lease'],
  },
  { level: 'None', why: 'event writes: volume, and no read evidence (lists and watches of events stay, below: events have no watch cache)', verbs: ['create', 'update', 'patch'], resources: [{ group: '', resources: ['events'] }, { group: 'events.k8s.io', resources: ['events'] }] },
  {
    level: 'Metadata',
    why: 'secrets, configmaps and tokens: never a body (a Secret at Request level, a token in a TokenRequest response)',
    resources: [{ group: '', resources: ['secrets', 'configmaps', 'serviceaccounts/token'] }, { group: 'authentication.k8s.io', resources: ['tokenreviews'] }],
    verbs: ['get', 'list', 'watch'],
  },
  { level: 'Request', why: 'TokenRequests: the request body holds expirationSeconds (the TTL that times the refresh waves), never the token', verbs: ['create'], resources: [{ group: '', resources: ['serviceaccounts/token'] }] },
  { level: 'Metadata', why: 'the apiserver identity leases and the leader-election leases of kube-system: the signs of an apiserver restart', resources: [{ group: 'coordination.k8s.io', resources: ['leases'] }], namespaces: ['kube-system'] },
  { level: 'Metadata', why: 'every list, watch and get: the evidence (the request URI holds resourceVersion, limit, continue and the selectors)', verbs: ['list', 'watch', 'get'] },
  { level: 'Metadata', why: 'everything else at Metadata: who wrote what, no bodies (change to None to keep only reads)' },
];

/** The rule an event falls under (the first that matches), or null for none (the apiserver writes nothing). */
export function ruleFor(e: Pick<AuditEvent, 'verb' | 'username' | 'resource' | 'apiGroup' | 'subresource' | 'namespace' | 'name' | 'requestURI'>, rules: readonly PolicyRule[] = POLICY_RULES): PolicyRule | null {
  const nonResource = e.resource.length === 0 && !e.requestURI.startsWith('/api');
  const path = e.requestURI.split('?')[0] ?? '';
  for (const r of rules) {
    if (r.users !== undefined && !r.users.includes(e.username)) continue;
    if (r.verbs !== undefined && !r.verbs.includes(e.verb)) continue;
    if (r.nonResourceURLs !== undefined) {
      if (!nonResource) continue;
      if (!r.nonResourceURLs.some((u) => u === '*' || (u.endsWith('*') ? path.startsWith(u.slice(0, -1)) : path === u))) continue;
      return r;
    }
    if (r.resources !== undefined) {
      if (nonResource) continue;
      const res = e.subresource.length > 0 ? `${e.resource}/${e.subresource}` : e.resource;
      const hit = r.resources.some((g) => g.group === e.apiGroup && (g.resources.includes(res) || g.resources.includes('*') || g.resources.includes(`${e.resource}/*`) || g.resources.includes(`*/${e.subresource}`)) && (g.resourceNames === undefined || g.resourceNames.includes(e.name)));
      if (!hit) continue;
    }
    if (r.namespaces !== undefined && (nonResource || !r.namespaces.includes(e.namespace))) continue;
    return r;
  }
  return null;
}

const q = (s: string): string => (/^[A-Za-z0-9_./*-]+$/.test(s) && !/^[*]/.test(s) ? s : JSON.stringify(s));
const list = (xs: string[]): string => `[${xs.map(q).join(', ')}]`;

/** The rules as an audit.k8s.io/v1 Policy (YAML), with `header` lines as comments on top. */
export function renderPolicyYaml(header: string[], rules: readonly PolicyRule[] = POLICY_RULES): string {
  const out: string[] = [...header.map((l) => `# ${l}`.trimEnd()), 'apiVersion: audit.k8s.io/v1', 'kind: Policy', '# one event a request, at its end: the RequestReceived stage doubles the volume and adds nothing', 'omitStages:', '  - RequestReceived', 'rules:'];
  for (const r of rules) {
    out.push(`  # ${r.why}`);
    out.push(`  - level: ${r.level}`);
    if (r.users !== undefined) out.push(`    users: ${list(r.users)}`);
    if (r.verbs !== undefined) out.push(`    verbs: ${list(r.verbs)}`);
    if (r.resources !== undefined) {
      out.push('    resources:');
      for (const g of r.resources) {
        out.push(`      - group: ${JSON.stringify(g.group)}`);
        out.push(`        resources: ${list(g.resources)}`);
        if (g.resourceNames !== undefined) out.push(`        resourceNames: ${list(g.resourceNames)}`);
      }
    }
    if (r.namespaces !== undefined) out.push(`    namespaces: ${list(r.namespaces)}`);
    if (r.nonResourceURLs !== undefined) out.push(`    nonResourceURLs: ${list(r.nonResourceURLs)}`);
  }
  return out.join('\n') + '\n';
}

/** What a log holds and what POLICY_RULES would have written of it, event by event (bounded: counters only). */
export class PolicyTally {
  events = 0;
  bytes = 0;
  keptEvents = 0;
  keptBytes = 0;
  notEvents = 0;
  tokenRequests = 0;
  listsWithBodies = 0;
  readonly byVerb = new Map<string, number>();
  readonly byStage = new Map<string, number>();
  readonly byLevel = new Map<string, number>();
  /** bytes the rules would write, by the rule's reason */
  readonly byRule = new Map<string, { events: number; bytesBefore: number; bytesAfter: number }>();

  /** One line of `lineBytes` bytes holding the parsed event `o` (its normalised fields `e`). */
  add(lineBytes: number, o: Record<string, unknown>, e: AuditEvent): void {
    this.events++;
    this.bytes += lineBytes;
    bump(this.byVerb, e.verb);
    bump(this.byStage, e.stage);
    bump(this.byLevel, typeof o.level === 'string' ? o.level : '?');
    if (e.verb === 'create' && e.resource === 'serviceaccounts' && e.subresource === 'token') this.tokenRequests++;
    if (e.verb === 'list' && o.level === 'RequestResponse') this.listsWithBodies++;
    const r = ruleFor(e);
    let after = 0;
    if (r !== null && r.level !== 'None' && e.stage !== 'RequestReceived') {
      // the same event at the rule's level: bodies it would not keep, left out
      const body = (k: string): number => (o[k] === undefined ? 0 : JSON.stringify(o[k]).length + k.length + 4);
      after = Math.max(0, lineBytes - body('responseObject') - (r.level === 'Request' ? 0 : body('requestObject')));
    }
    if (after > 0) {
      this.keptEvents++;
      this.keptBytes += after;
    }
    const k = r === null ? '(no rule)' : `${r.level}: ${r.why}`;
    const t = this.byRule.get(k) ?? { events: 0, bytesBefore: 0, bytesAfter: 0 };
    t.events++;
    t.bytesBefore += lineBytes;
    t.bytesAfter += after;
    this.byRule.set(k, t);
  }

  /** What the log's own policy hides from the analysis, each with what it costs, or nothing. */
  hides(): string[] {
    if (this.events === 0) return [];
    const n = (v: string): number => this.byVerb.get(v) ?? 0;
    const out: string[] = [];
    if (n('list') === 0) out.push('every list request (the log has none): list storms and the etcd reads of lists are invisible');
    if (n('watch') === 0) out.push('every watch (the log has none): the watches that end at an apiserver restart, and watch-lists (client-go ≥ 0.35 lists that way), are not seen');
    if (n('get') === 0) out.push('every get (the log has none): gets without resourceVersion, quorum reads of etcd, are not seen');
    if (this.tokenRequests > 0 && (this.byLevel.get('Request') ?? 0) + (this.byLevel.get('RequestResponse') ?? 0) === 0) out.push('the TTL of TokenRequests (Metadata only: expirationSeconds is in the request body), so refresh waves are timed from the log alone');
    const st = (k: string): number => this.byStage.get(k) ?? 0;
    if (st('RequestReceived') === this.events) out.push('every response (the log has only the RequestReceived stage): no status codes, latencies or refused requests, so what was served and how slowly is not seen (omitStages: [RequestReceived] keeps the other stages instead)');
    if (this.listsWithBodies === 0 && n('list') > 0) out.push('the objects a list returned (no list at RequestResponse): they are estimated, not counted (pass --objects, or the etcd log)');
    return out;
  }

  /** What the log's own policy keeps that adds no evidence. */
  wastes(): string[] {
    const out: string[] = [];
    const rr = this.byStage.get('RequestReceived') ?? 0;
    if (rr > 0 && rr >= 0.3 * this.events) out.push(`the RequestReceived stage: ${Math.round((rr / this.events) * 100)}% of the events add nothing (omitStages: [RequestReceived])`);
    const dropped = [...this.byRule].filter(([k]) => k.startsWith('None: ')).reduce((a, [, t]) => a + t.bytesBefore, 0);
    if (this.bytes > 0 && dropped >= 0.2 * this.bytes) out.push(`heartbeats, health checks and event writes: ${Math.round((dropped / this.bytes) * 100)}% of the bytes`);
    return out;
  }
}

