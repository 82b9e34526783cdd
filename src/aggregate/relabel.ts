/*! One job: a part's input indices renumbered to those of the merged list (issue 46 #3). A part made on its own
 * (`audit-scan partial audit.log` on each apiserver node) numbers its inputs from 0; merged with parts made
 * elsewhere, its inputs take their places in the canonical order, and every aggregate keyed by an input index (a
 * group's marks, the per-input series, the client and apiserver-stream keys) is keyed by the new one. A new
 * input-keyed field of StateSnapshot or SegmentResult must be renumbered here: the independent-merge test in
 * test/partial.test.ts compares every byte with one scan and fails on a field left out. */

import type { SegmentResult, StateSnapshot, TimeState } from './scan-state.js';
import { clientInputKey, parseClientInputKey, parseStreamKey, streamKey } from './scan-state.js';
import { markKey, parseMarkKey, type ReadGroup } from './read-groups.js';

type To = (input: number) => number;

const byIndex = <V>(m: Map<number, V> | undefined, to: To): Map<number, V> => new Map([...(m ?? [])].map(([k, v]): [number, V] => [to(Number(k)), v]));

/** A streamKey or a plain input index as a string: the same key on the new index. */
function sourceKey(k: string, to: To): string {
  const s = parseStreamKey(k);
  return s.apiserver === null ? String(to(s.input)) : streamKey(to(s.input), s.apiserver);
}

const byStream = <V>(m: Map<string, V> | undefined, to: To): Map<string, V> => new Map([...(m ?? [])].map(([k, v]): [string, V] => [sourceKey(k, to), v]));

/** `${input}\u0000${rest}` keys (TimeState.initRejects). */
function byLeadingIndex<V>(m: Map<string, V>, to: To): Map<string, V> {
  return new Map(
    [...m].map(([k, v]): [string, V] => {
      const i = k.indexOf('\u0000');
      return [`${to(Number(k.slice(0, i)))}${k.slice(i)}`, v];
    }),
  );
}

function relabelGroup(g: ReadGroup, to: To): ReadGroup {
  if (g.marks.size === 0) return g;
  const marks = new Map(
    [...g.marks].map(([k, s]): [string, typeof s] => {
      const m = parseMarkKey(k);
      return [markKey(m.kind, m.sig, to(m.input)), s];
    }),
  );
  return { ...g, marks };
}

function relabelTime(t: TimeState, to: To): TimeState {
  return {
    ...t,
    inputLists: byIndex(t.inputLists, to),
    inputWatchEnds: byIndex(t.inputWatchEnds, to),
    initRejects: byLeadingIndex(t.initRejects, to),
    inputGaps: byIndex(t.inputGaps, to),
    inputSpacing: byIndex(t.inputSpacing, to),
    inputSigns: byIndex(t.inputSigns, to),
    inputRequests: byIndex(t.inputRequests, to),
    clientInputs: new Map(
      [...t.clientInputs].map(([k, c]): [string, typeof c] => {
        const p = parseClientInputKey(k);
        return [clientInputKey(sourceKey(p.source, to), p.userAgent, p.username), c];
      }),
    ),
    streamRequests: byStream(t.streamRequests, to),
    streamLists: byStream(t.streamLists, to),
    streamWatchEnds: byStream(t.streamWatchEnds, to),
    streamGaps: byStream(t.streamGaps, to),
    streamSpacing: byStream(t.streamSpacing, to),
    streamSpan: byStream(t.streamSpan, to),
    streamOverflow: byIndex(t.streamOverflow, to),
  };
}

/** The snapshot with input i read as to(i). */
export function relabelSnapshot(o: StateSnapshot, to: To): StateSnapshot {
  const groups = new Map([...o.groups].map(([k, g]): [string, ReadGroup] => [k, relabelGroup(g, to)]));
  return { ...o, groups, time: relabelTime(o.time, to) };
}

/** The segment with its input read as to(i). */
export function relabelSegment(r: SegmentResult, to: To): SegmentResult {
  return { ...r, inputIndex: to(r.inputIndex) };
}
