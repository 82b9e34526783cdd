// One log cut with --split-at (issue 47 #1): the findings of a time as the cut leaves them. Split at 12:30; each
// side's report may hold the other's restarts and gaps (the restart rules read every line).
import { describe, expect, it } from 'vitest';
import { diffReports, type FindingJson, type SideReport } from '../../src/analyze/diff.js';

const side = (findings: FindingJson[]): SideReport => ({
  schemaVersion: 1,
  tool: { name: 'audit-scan', version: 't' },
  totals: { requests: 10, clusterNodes: 0, firstSeen: '2026-11-30T12:00:00.000Z', lastSeen: '2026-11-30T12:10:00.000Z' },
  listGroups: [],
  getGroups: [],
  findings,
  summary: { window: { start: '2026-11-30T12:00:00.000Z', end: '2026-11-30T12:10:00.000Z', seconds: 600 } },
});
const f = (kind: string, start: string, end: string, severity = 'info', more: Partial<FindingJson> = {}): FindingJson => ({ kind, severity, summary: `${kind} ${start}`, input: 'a.log', start: `2026-11-30T${start}Z`, end: `2026-11-30T${end}Z`, ...more });
const SPLIT = Date.UTC(2026, 10, 30, 12, 30);
const changes = (b: FindingJson[], a: FindingJson[], split: number | null = SPLIT) =>
  diffReports(side(b), side(a), { before: 'before', after: 'after' }, { before: 'b', after: 'a' }, 't', split === null ? {} : { splitAtMs: split }).findings.map((x) => [x.change, x.summaryAfter ?? x.summaryBefore]);

describe('diff --split-at: findings of a time', () => {
  const gap = f('audit-gap', '12:09:59', '13:00:00');
  it.each([
    // both sides see the gap the split falls in
    ['a gap across the split, on both sides', [gap], [gap], [['cut by the split', 'audit-gap 12:09:59']]],
    // a restart at the split point itself
    ['a restart at the split', [f('apiserver-restart', '12:30:00', '12:30:00')], [f('apiserver-restart', '12:30:00', '12:30:00')], [['cut by the split', 'apiserver-restart 12:30:00']]],
    // an audit-gap of several pauses, one each side of the split: its first pause is before it
    ['pauses on both sides, one finding', [f('audit-gap', '12:05:00', '12:06:00', 'info', { gaps: [{ start: '2026-11-30T12:05:00Z', end: '2026-11-30T12:06:00Z' }, { start: '2026-11-30T12:40:00Z', end: '2026-11-30T12:41:00Z' }] })], [], [['cut by the split', 'audit-gap 12:05:00']]],
    // each side holds both restarts: each goes to its own side, and a restart each side is "still" (kind and
    // subject), the after side's shown
    ['a restart each side, both in both reports', [f('apiserver-restart', '12:05:00', '12:05:00'), f('apiserver-restart', '12:40:00', '12:40:00')], [f('apiserver-restart', '12:05:00', '12:05:00'), f('apiserver-restart', '12:40:00', '12:40:00')], [['still', 'apiserver-restart 12:40:00']]],
    // the after side's restart, in the before report only: it is the after side's
    ['a later restart in the before report only', [f('apiserver-restart', '12:40:00', '12:40:00')], [], [['appeared', 'apiserver-restart 12:40:00']]],
    // a medium storm across the split never makes the diff worse
    ['a storm across the split', [], [f('list-storm', '12:29:00', '12:31:00', 'medium')], [['cut by the split', 'list-storm 12:29:00']]],
  ])('%s', (_name, b, a, want) => {
    expect(changes(b, a)).toEqual(want);
  });

  it('two logs (no split): matched by kind and subject as before', () => {
    expect(changes([gap], [gap], null)).toEqual([['still', 'audit-gap 12:09:59']]);
    const d = diffReports(side([]), side([f('list-storm', '12:29:00', '12:31:00', 'medium')]), { before: 'before', after: 'after' }, { before: 'b', after: 'a' }, 't', { splitAtMs: SPLIT });
    expect(d.worse).toBe(false);
  });
});
