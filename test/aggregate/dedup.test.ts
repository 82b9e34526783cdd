// The dedup by auditID (src/aggregate/dedup.ts) wherever an input is cut: a request's stages, a copy of its final
// event and an earlier stage logged after the final one, split across two or three segments at every place, are
// counted as one segment counts them. By hand: a, b, c, d and e are five requests; b's final event is logged
// twice (one copy dropped); c's RequestReceived comes after its final event (dropped); d never completes (counted
// at the end, as it is). In-process, with the JavaScript dedup and with the engine module's, so that a mutation
// run sees the rules of both sides.
import { describe, expect, it } from 'vitest';
import { ScanState } from '../../src/aggregate/scan-state.js';
import { NO_FILTER } from '../../src/aggregate/filters.js';
import { loadEngine } from '../../src/decode/engine/engine.js';
import type { AuditEvent, Stage } from '../../src/model/audit-event.js';

const T = Date.UTC(2026, 0, 1, 10);
const NOW = Date.UTC(2026, 0, 2);

function ev(id: string, stage: Stage, receivedMs: number, stageMs: number): AuditEvent {
  return {
    auditID: id, stage, level: 'Metadata', verb: 'get', requestURI: `/api/v1/namespaces/a/pods/${id}`, username: 'u', userAgent: `ua-${id}/1`, nodeName: null,
    resource: 'pods', apiGroup: '', namespace: 'a', name: id, subresource: '', code: 200, receivedMs, stageMs, returnedItems: null, remainingItems: null,
    tokenExpirationSeconds: null, leaseHolder: null, queryKnown: true, etcdLatencyMs: null, apfQueueWaitMs: null,
  };
}

// in line order, `step` apart: 100 ms keeps every line within a segment's head (its first second, which
// reconcile() pairs), 2 s takes most past it (a cut meets the look-back of the segment before)
const events = (step: number): AuditEvent[] => [
  ev('a', 'RequestReceived', T, T),
  ev('b', 'ResponseComplete', T + 1 * step, T + 2 * step),
  ev('a', 'ResponseComplete', T, T + 3 * step),
  ev('b', 'ResponseComplete', T + 1 * step, T + 2 * step), // a copy
  ev('c', 'ResponseComplete', T + 4 * step, T + 5 * step),
  ev('c', 'RequestReceived', T + 4 * step, T + 4 * step), // logged after its final stage
  ev('d', 'RequestReceived', T + 6 * step, T + 6 * step), // never completed
  ev('e', 'ResponseComplete', T + 7 * step, T + 8 * step),
];
const EVENTS = events(0);

interface Counted {
  requests: number;
  duplicates: number;
  userAgents: Record<string, number>;
}

/** EVENTS read as one input cut before each index in `cuts`. */
function scan(cuts: number[], engine: boolean, step: number): Counted {
  const EVENTS = events(step);
  const st = new ScanState(null, null, undefined, { filter: NO_FILTER, bucketMs: 1000, gapMs: null, nowMs: NOW });
  if (engine) st.engine = loadEngine().engine;
  const idx = st.addInput('a.log');
  const bounds = [0, ...cuts, EVENTS.length];
  const results = [];
  for (let s = 0; s + 1 < bounds.length; s++) {
    const before = EVENTS.slice(0, bounds[s]).reduce<number | null>((m, e) => (m === null || e.stageMs! > m ? e.stageMs : m), null);
    st.beginSegment(idx, 'a.log', `s${s}`, before);
    for (const e of EVENTS.slice(bounds[s], bounds[s + 1])) st.addAuditEvent({ ...e });
    results.push(st.endSegment());
  }
  for (const r of results) st.reconcile(r);
  st.finishPending();
  return { requests: st.counters.requests, duplicates: st.inputs[idx]!.duplicateEvents, userAgents: Object.fromEntries([...st.userAgents].sort()) };
}

const ONCE = { requests: 5, duplicates: 1, userAgents: { 'ua-a/1': 1, 'ua-b/1': 1, 'ua-c/1': 1, 'ua-d/1': 1, 'ua-e/1': 1 } };

describe.each([
  ['JavaScript', false, 100],
  ['JavaScript', false, 2000],
  ['the engine module', true, 100],
  ['the engine module', true, 2000],
])('the dedup by auditID, in %s, lines %i ms apart, wherever the input is cut', (_name, engine, step) => {
  it('one segment', () => {
    expect(scan([], engine, step)).toEqual(ONCE);
  });

  it.each(Array.from({ length: EVENTS.length - 1 }, (_, i) => [i + 1]))('two segments, cut before line %i', (cut) => {
    expect(scan([cut], engine, step)).toEqual(ONCE);
  });

  const pairs: Array<[number, number]> = [];
  for (let i = 1; i < EVENTS.length; i++) for (let j = i + 1; j < EVENTS.length; j++) pairs.push([i, j]);
  it.each(pairs)('three segments, cut before lines %i and %i', (i, j) => {
    expect(scan([i, j], engine, step)).toEqual(ONCE);
  });
});
