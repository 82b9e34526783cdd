// Which form of the request record an engine line takes (src/aggregate/request-record.ts): the engine's record
// stands for its line only when both times are there and it is not in kube-system's leases (plainEngineLine); it
// counts into the compiled aggregator's slots when the module's rule can (classify() ≠ 0), else as its AuditEvent.
// Both forms count the same (request-record.test.ts holds them equal); this holds the choice, which is what keeps
// an event from being made for most lines. Table-driven, the real module, in-process.
import { describe, expect, it } from 'vitest';
import { auditLine } from '../support.js';
import { EngineRecord, plainEngineLine } from '../../src/aggregate/request-record.js';
import { ScanState } from '../../src/aggregate/scan-state.js';
import { loadEngine, type LineEngine } from '../../src/decode/engine/engine.js';

interface Seen {
  accepted: boolean;
  plain: boolean;
  /** count() handed the AuditEvent on (false: it marked the line for the slots) */
  asEvent: boolean;
  id: string;
  eventId: string;
  receivedMs: number | null;
  stageMs: number | null;
  terminal: boolean;
}

function engine(): LineEngine {
  const eng = loadEngine().engine;
  if (eng === null) throw new Error('no engine');
  return eng;
}

/** The line read by the engine, as its record (named `synthetic` when given), after a first line the ScanState's
 * door took as a scan does (which sets the compiled aggregator up for the module's rule). */
function seen(line: string, synthetic: string | null = null): Seen {
  const eng = engine();
  const st = new ScanState('/registry');
  st.engine = eng;
  st.beginInput('x');
  const buf = Buffer.from(auditLine({ auditID: 'first' }) + '\n' + line + '\n');
  const out: Seen[] = [];
  let n = 0;
  eng.readLines(buf, 0, buf.length, 1 << 20, 0, (l) => {
    if (n++ === 0) return st.addEngineLine(l);
    const r = new EngineRecord().set(eng, l, synthetic);
    let asEvent = false;
    const plain = plainEngineLine(r, eng);
    r.count(() => (asEvent = true));
    out.push({ accepted: l.accepted, plain, asEvent, id: r.id(), eventId: r.event().auditID, receivedMs: r.receivedMs, stageMs: r.stageMs, terminal: r.terminal });
  });
  expect(out).toHaveLength(1);
  return out[0]!;
}

const ref = (resource: string, namespace?: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ resource, apiVersion: 'v1', ...(namespace === undefined ? {} : { namespace }), ...extra });

// [what, fields of the audit line, stands for its line, counted as its AuditEvent]
const cases: Array<[string, Record<string, unknown>, boolean, boolean]> = [
  ['a list of pods: the record, into the slots', {}, true, false],
  ['an update of a node lease: the record (kube-node-lease is no identity lease)', { verb: 'update', requestURI: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1', objectRef: ref('leases', 'kube-node-lease', { name: 'n1', apiGroup: 'coordination.k8s.io' }) }, true, false],
  ['a get of a configmap in kube-system: the record (not a lease)', { verb: 'get', requestURI: '/api/v1/namespaces/kube-system/configmaps/c', objectRef: ref('configmaps', 'kube-system', { name: 'c' }) }, true, false],
  ['an update of a lease in kube-system: its AuditEvent (an identity lease is a restart sign)', { verb: 'update', requestURI: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/apiserver-x', objectRef: ref('leases', 'kube-system', { name: 'apiserver-x', apiGroup: 'coordination.k8s.io' }) }, false, false],
  ['a TokenRequest: counted as its AuditEvent (its account)', { verb: 'create', requestURI: '/api/v1/namespaces/ns/serviceaccounts/sa/token', objectRef: ref('serviceaccounts', 'ns', { name: 'sa', subresource: 'token' }), responseStatus: { code: 201 } }, true, true],
  ['no objectRef: counted as its AuditEvent (the URI names the resource)', { objectRef: undefined }, true, true],
];

describe('the engine record: which form a line takes', () => {
  it.each(cases)('%s', (_what, fields, plain, asEvent) => {
    const s = seen(auditLine({ auditID: 'rec-1', ...fields }));
    expect({ plain: s.plain, asEvent: s.asEvent }).toEqual({ plain, asEvent });
    expect(s.id).toBe('rec-1');
    expect(s.eventId).toBe('rec-1');
    expect(s.terminal).toBe(true);
  });

  it('reads both times from the module, and an earlier stage is not final', () => {
    const s = seen(auditLine({ auditID: 'rec-2', stage: 'ResponseStarted', requestReceivedTimestamp: '2026-01-01T00:00:01.000000Z', stageTimestamp: '2026-01-01T00:00:01.250000Z' }));
    expect(s).toMatchObject({ receivedMs: Date.UTC(2026, 0, 1, 0, 0, 1), stageMs: Date.UTC(2026, 0, 1, 0, 0, 1, 250), terminal: false });
  });

  it('the module declines an audit line without a stage time, or with a time it cannot read (the JavaScript path reads it); one without requestReceivedTimestamp takes its stage time', () => {
    const eng = engine();
    for (const f of [{ stageTimestamp: undefined }, { stageTimestamp: null }, { requestReceivedTimestamp: null }, { requestReceivedTimestamp: 'soon' }]) {
      const buf = Buffer.from(auditLine(f) + '\n');
      const accepted: boolean[] = [];
      eng.readLines(buf, 0, buf.length, 1 << 20, 0, (l) => accepted.push(l.accepted));
      expect(accepted, JSON.stringify(f)).toEqual([false]);
    }
    const s = seen(auditLine({ auditID: 'rec-3', requestReceivedTimestamp: undefined, stageTimestamp: '2026-01-01T00:00:02.000000Z' }));
    expect(s).toMatchObject({ accepted: true, plain: true, receivedMs: Date.UTC(2026, 0, 1, 0, 0, 2), stageMs: Date.UTC(2026, 0, 1, 0, 0, 2) });
  });

  it('a line without an auditID goes under the name the caller gave it, its event too', () => {
    const s = seen(auditLine({ auditID: undefined }), '(no auditID 7)');
    expect(s.id).toBe('(no auditID 7)');
    expect(s.eventId).toBe('(no auditID 7)');
  });
});
