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

function scan(lines: string[], engine: boolean): Tally {
  const st = new ScanState('/registry');
  const eng = engine ? loadEngine().engine : null;
  if (engine && eng === null) throw new Error('no engine');
  st.engine = eng;
  st.beginInput('x');
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

describe('the request record: one door, both forms, the same counts', () => {
  it.each(cases)('%s', (_what, lines, requests, duplicates, implausible, signs) => {
    const js = scan(lines, false);
    const wasm = scan(lines, true);
    expect(js).toMatchObject({ requests, duplicates, implausible, signs, engineRead: 0 });
    expect({ ...wasm, engineRead: 0 }).toEqual(js);
    // (the engine read the lines: its record, or its AuditEvent, went through the door)
    expect(wasm.engineRead).toBeGreaterThan(0);
  });

  it('the list groups two user agents make', () => {
    const lines = [auditLine({ auditID: 'a' }), auditLine({ auditID: 'b', userAgent: 'other/1' }), auditLine({ auditID: 'c' })];
    expect(scan(lines, false).listGroups).toBe(2);
    expect(scan(lines, true).listGroups).toBe(2);
  });
});
