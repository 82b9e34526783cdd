// The one door for requests (src/aggregate/request-record.ts, ScanState.addRequest): the same audit lines read
// by the engine in this process (its record, or the line's AuditEvent where the record cannot stand for it) and by
// the JavaScript path count the same, and the counts are the ones worked out by hand below. In-process, so a
// mutation run sees both record forms.
import { describe, expect, it } from 'vitest';
import { auditLine } from '../support.js';
import { ScanState } from '../../src/aggregate/scan-state.js';
import { loadEngine } from '../../src/decode/engine/engine.js';

const T0 = '2026-01-01T00:00:00.000000Z';
const T1 = '2026-01-01T00:00:00.200000Z';
const at = (s: number): string => `2026-01-01T00:00:${String(s).padStart(2, '0')}.000000Z`;

interface Tally {
  requests: number;
  duplicates: number;
  implausible: number;
  signs: string[];
  listGroups: number;
  engineRead: number;
}

type Mode = 'js' | 'engine' | 'engine, dedup in JavaScript';

/** The lines read as one input: by the JavaScript path, by the engine (most lines admitted by its module, the
 * rest through the door as its record or their AuditEvent), or by the engine with the dedup in JavaScript (every
 * line through the door). */
function scan(lines: string[], mode: Mode): Tally {
  const st = new ScanState('/registry');
  const engine = mode !== 'js';
  const eng = engine ? loadEngine().engine : null;
  if (engine && eng === null) throw new Error('no engine');
  st.engine = eng;
  const dedupWas = process.env.AUDIT_SCAN_DEDUP;
  if (mode === 'engine, dedup in JavaScript') process.env.AUDIT_SCAN_DEDUP = 'js';
  try {
    st.beginInput('x');
  } finally {
    if (dedupWas === undefined) delete process.env.AUDIT_SCAN_DEDUP;
    else process.env.AUDIT_SCAN_DEDUP = dedupWas;
  }
  const buf = Buffer.from(lines.join('\n') + '\n');
  if (eng !== null) {
    eng.readLines(buf, 0, buf.length, 1 << 20, 0, (l) => (l.accepted ? st.addEngineLine(l) : st.addLine(0, buf.toString('utf8', l.start, l.end), true, false)), (i, n) => st.engineFast(i, n));
  } else lines.forEach((l, i) => st.addLine(i + 1, l, true, false));
  st.endInput();
  st.finishPending();
  const inp = st.inputs[0]!;
  return {
    requests: st.counters.requests,
    duplicates: inp.duplicateEvents,
    implausible: inp.implausibleTimes,
    signs: (st.time.inputSigns.get(0) ?? []).map(([, what]) => what),
    listGroups: [...st.groups.groups.values()].filter((g) => g.verb === 'list').length,
    engineRead: inp.engineRead,
  };
}

const lease = (id: string, holder: string, s: number): string =>
  auditLine({ auditID: id, verb: 'update', requestURI: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/apiserver-abc', objectRef: { resource: 'leases', namespace: 'kube-system', name: 'apiserver-abc', apiGroup: 'coordination.k8s.io', apiVersion: 'v1' }, requestObject: { spec: { holderIdentity: holder } }, requestReceivedTimestamp: at(s), stageTimestamp: at(s) });

// [what, lines, requests, copies dropped, implausible times, restart signs]
const cases: Array<[string, string[], number, number, number, string[]]> = [
  ['one list, its two stages', [auditLine({ auditID: 'a', stage: 'RequestReceived', stageTimestamp: T0 }), auditLine({ auditID: 'a', stageTimestamp: T1 })], 1, 0, 0, []],
  ['a final event logged twice', [auditLine({ auditID: 'a' }), auditLine({ auditID: 'a' })], 1, 1, 0, []],
  ['an earlier stage logged after its final one', [auditLine({ auditID: 'a' }), auditLine({ auditID: 'a', stage: 'RequestReceived', stageTimestamp: T0 })], 1, 0, 0, []],
  ['two requests without an auditID: two requests', [auditLine({ auditID: undefined }), auditLine({ auditID: undefined })], 2, 0, 0, []],
  ['a time that cannot be real: counted, its time left out', [auditLine({ auditID: 'a' }), auditLine({ auditID: 'b', requestReceivedTimestamp: '1970-01-01T00:00:01.000000Z', stageTimestamp: '1970-01-01T00:00:01.000000Z' })], 2, 0, 1, []],
  ['a create that is no lease: no restart sign', [auditLine({ auditID: 'a', verb: 'create', requestURI: '/api/v1/namespaces/x/configmaps', objectRef: { resource: 'configmaps', namespace: 'x', apiVersion: 'v1' }, responseStatus: { code: 201 } })], 1, 0, 0, []],
  ['an identity lease taken over: a restart sign', [auditLine({ auditID: 'a' }), lease('l1', 'apiserver-abc_1', 1), lease('l2', 'apiserver-abc_2', 30)], 3, 0, 0, ['identity lease taken over']],
  [
    'three lists, two stages each, interleaved, and a copy of one',
    [
      auditLine({ auditID: 'a', stage: 'RequestReceived', stageTimestamp: T0 }),
      auditLine({ auditID: 'b', stage: 'RequestReceived', stageTimestamp: T0, userAgent: 'other/1' }),
      auditLine({ auditID: 'a' }),
      auditLine({ auditID: 'c', userAgent: 'other/1' }),
      auditLine({ auditID: 'b', userAgent: 'other/1' }),
      auditLine({ auditID: 'a' }),
    ],
    3,
    1,
    0,
    [],
  ],
];

// A request 10 s before a case's lines: they then fall past the segment's head (its first second, whose final
// events reconcile() counts), where the engine's module and the door count them.
const LEAD = auditLine({ auditID: 'lead', userAgent: 'lead/1', requestReceivedTimestamp: '2025-12-31T23:59:50.000000Z', stageTimestamp: '2025-12-31T23:59:50.100000Z' });

describe.each([['at the head', false], ['past the head', true]])('the request record: one door, both forms, the same counts (%s)', (_where, lead) => {
  it.each(cases)('%s', (_what, lines, requests, duplicates, implausible, signs) => {
    const input = lead ? [LEAD, ...lines] : lines;
    const js = scan(input, 'js');
    expect(js).toMatchObject({ requests: requests + (lead ? 1 : 0), duplicates, implausible, signs, engineRead: 0 });
    for (const mode of ['engine', 'engine, dedup in JavaScript'] as const) {
      const wasm = scan(input, mode);
      expect({ ...wasm, engineRead: 0 }, mode).toEqual(js);
      // (the engine read the lines: its record, or its AuditEvent, went through the door)
      expect(wasm.engineRead, mode).toBeGreaterThan(0);
    }
  });
});

describe('the request record: groups', () => {
  it('the list groups two user agents make', () => {
    const lines = [auditLine({ auditID: 'a' }), auditLine({ auditID: 'b', userAgent: 'other/1' }), auditLine({ auditID: 'c' })];
    for (const mode of ['js', 'engine', 'engine, dedup in JavaScript'] as const) expect(scan(lines, mode).listGroups, mode).toBe(2);
  });
});
