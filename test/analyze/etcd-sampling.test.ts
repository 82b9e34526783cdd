// etcd's zap logger samples (pkg/logutil/zap.go@v3.4.23: Initial 100, Thereafter 100, zap's 1 s tick per message
// and level): where a log is that dense, the slow reads counted are a lower bound, and the report says where.
// test/etcd-real.test.ts shows it on a real etcd; here the rule, against a model of zap's sampler.
import { describe, expect, it } from 'vitest';
import { EtcdReads, zapSampledMessage, zapSampledSpans, ZAP_SAMPLE_FIRST } from '../../src/aggregate/etcd-reads.js';
import { addEtcdSamplingMethod } from '../../src/analyze/report.js';
import type { EtcdEntry, EtcdRangeEntry } from '../../src/decode/etcd-line.js';
import { mulberry32 } from '../../fixtures/prng.mjs';
import { runCli } from '../support.js';
import type { ScanReport } from '../../src/analyze/report.js';

const T = Date.UTC(2026, 11, 2, 14, 52, 30);

function range(tsMs: number | null, via: EtcdRangeEntry['via'] = 'apply'): EtcdRangeEntry {
  return { kind: 'range', via, tsMs, tookMs: 1, key: '/registry/leases/kube-node-lease/node-001', rangeEnd: null, limit: 0, countOnly: false, keysOnly: false, revision: 0, objects: 1, totalKeys: null, bytes: 112, error: null };
}

/** zap's sampler (zapcore/sampler.go, zap 1.17 as etcd 3.4.23 vendors it): a counter per message, reset by the first
 * line at or after its reset time (that line's time + 1 s); a line is written when its count is ≤ 100 or 100 past a
 * multiple of 100. Returns the times written and the times dropped. */
function zapSampler(times: number[]): { written: number[]; dropped: number[] } {
  let resetAt = -Infinity;
  let n = 0;
  const written: number[] = [];
  const dropped: number[] = [];
  for (const t of times) {
    if (t >= resetAt) {
      n = 1;
      resetAt = t + 1000;
    } else n++;
    if (n > 100 && (n - 100) % 100 !== 0) dropped.push(t);
    else written.push(t);
  }
  return { written, dropped };
}

function spansOf(times: number[], via: EtcdRangeEntry['via'] = 'apply') {
  const r = new EtcdReads(null);
  for (const t of times) r.noteLine(range(t, via));
  return zapSampledSpans(r.zapSeconds);
}

describe("zap's sampler and the lower bound", () => {
  it('which lines count: the sampled messages, never capnslog or trace lines, and only with a time', () => {
    const other = (what: string): EtcdEntry => ({ kind: 'other', what, tsMs: T });
    expect([range(T), range(T, 'stats'), range(T, 'trace'), range(T, 'capnslog'), other('slow write'), other('request stats'), other('slow request'), other('wal sync')].map(zapSampledMessage)).toEqual([0, 1, -1, -1, 0, 1, -1, -1]);
    const r = new EtcdReads(null);
    r.noteLine(range(null));
    r.noteLine(range(T, 'capnslog'));
    expect(r.zapSeconds.size).toBe(0);
  });

  it.each([
    ['nothing', [], []],
    ['99 lines in a second', Array.from({ length: 99 }, (_, i) => T + i * 10), []],
    ['100 lines in a second: the next second may hold dropped lines', Array.from({ length: 100 }, (_, i) => T + i * 5), [[T, T + 2000, 100]]],
    ['60 and 40 in adjacent seconds', [...Array.from({ length: 60 }, (_, i) => T + 500 + i * 8), ...Array.from({ length: 40 }, (_, i) => T + 1000 + i)], [[T, T + 2000, 100]]],
    ['60 and 40 two seconds apart', [...Array.from({ length: 60 }, (_, i) => T + i), ...Array.from({ length: 40 }, (_, i) => T + 2000 + i)], []],
    ['capnslog writes every line: never', Array.from({ length: 300 }, (_, i) => T + i), [], 'capnslog'],
  ] as Array<[string, number[], Array<[number, number, number]>, EtcdRangeEntry['via']?]>)('%s', (_name, times, want, via) => {
    expect(spansOf(times, via).map((s) => [s.fromMs, s.toMs, s.lines])).toEqual(want);
  });

  it('slow reads and slow writes share a message; request stats have their own', () => {
    const r = new EtcdReads(null);
    for (let i = 0; i < 50; i++) r.noteLine(range(T + i));
    for (let i = 0; i < 50; i++) r.noteLine({ kind: 'other', what: 'slow write', tsMs: T + 100 + i });
    for (let i = 0; i < 99; i++) r.noteLine(range(T + i, 'stats'));
    expect(zapSampledSpans(r.zapSeconds)).toEqual([{ fromMs: T, toMs: T + 2000, message: 'apply request took too long', lines: 100 }]);
  });

  it('wherever the model sampler drops a line, a span says so (random bursts)', () => {
    const rnd = mulberry32(21);
    for (let round = 0; round < 300; round++) {
      const times: number[] = [];
      let t = T;
      const bursts = 1 + Math.floor(rnd() * 6);
      for (let b = 0; b < bursts; b++) {
        t += Math.floor(rnd() * 3000);
        const n = Math.floor(rnd() * 400);
        const width = 1 + Math.floor(rnd() * 2500);
        for (let i = 0; i < n; i++) times.push(t + Math.floor(rnd() * width));
      }
      times.sort((a, b) => a - b);
      const { written, dropped } = zapSampler(times);
      const spans = spansOf(written);
      for (const d of dropped) expect(spans.some((s) => s.fromMs <= d && d < s.toMs), `a line dropped at +${d - T} ms, round ${round}`).toBe(true);
      if (dropped.length > 0) expect(spans.length).toBeGreaterThan(0);
      // a span needs 100 written lines in two adjacent seconds: fewer than ZAP_SAMPLE_FIRST written never gives one
      if (written.length < ZAP_SAMPLE_FIRST) expect(spans).toEqual([]);
    }
  });

  it('merges across workers and segments by adding the seconds', () => {
    const a = new EtcdReads(null);
    const b = new EtcdReads(null);
    for (let i = 0; i < 60; i++) a.noteLine(range(T + i));
    for (let i = 0; i < 40; i++) b.noteLine(range(T + 100 + i));
    expect(zapSampledSpans(a.zapSeconds)).toEqual([]);
    a.merge(b);
    expect(zapSampledSpans(a.zapSeconds).map((s) => s.lines)).toEqual([100]);
  });

  it('the method says where the counts are a lower bound, and says nothing when nowhere', () => {
    const m = { measured: ['x'], estimated: [], kubernetes: 'k' };
    addEtcdSamplingMethod(m, []);
    expect(m).toEqual({ measured: ['x'], estimated: [], kubernetes: 'k' });
    addEtcdSamplingMethod(m, [{ fromMs: T, toMs: T + 2000, message: 'apply request took too long', lines: 102 }]);
    expect(m).toMatchObject({ etcdSampled: [{ from: '2026-12-02T14:52:30Z', to: '2026-12-02T14:52:32Z', message: 'apply request took too long', lines: 102 }] });
    expect(m.estimated).toEqual([
      `slow etcd reads 2026-12-02T14:52:30Z to 14:52:32Z (102 "apply request took too long" lines): a lower bound, as etcd's zap logger writes 100 lines of a message a second, then 1 in 100 (slow reads and writes share one message), and the log is that dense there`,
    ]);
    const many = { measured: [], estimated: [], kubernetes: 'k' };
    addEtcdSamplingMethod(many, [0, 5, 10, 15].map((s) => ({ fromMs: T + s * 1000, toMs: T + s * 1000 + 2000, message: 'apply request took too long', lines: 100 })));
    expect(many.estimated[0]).toContain(', 1 more stretch: a lower bound');
  });

  const zapLine = (ms: number): string =>
    JSON.stringify({ level: 'warn', ts: new Date(T + ms).toISOString(), caller: 'etcdserver/util.go:167', msg: 'apply request took too long', took: '1ms', 'expected-duration': '0s', prefix: 'read-only range ', request: 'key:"/registry/leases/kube-node-lease/node-001" ', response: 'range_response_count:1 size:112' });
  const capnsLine = (ms: number): string =>
    `${new Date(T + ms).toISOString().replace('T', ' ').replace('Z', '000')} W | etcdserver: read-only range request "key:\\"/registry/leases/kube-node-lease/node-001\\" " with result "range_response_count:1 size:112" took too long (1ms) to execute`;

  it.each([
    ['zap, 102 lines in a second (a storm of 300)', zapLine, 102, true],
    ['zap, 60 lines in a second', zapLine, 60, false],
    ['capnslog, 300 lines in a second', capnsLine, 300, false],
  ] as const)('the report: %s', async (_name, line, n, lowerBound) => {
    const log = Array.from({ length: n }, (_, i) => line(Math.floor((i * 900) / n))).join('\n') + '\n';
    const r = await runCli(['-o', 'json', '-'], log);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as ScanReport;
    expect(report.totals.etcdSlowRanges).toBe(n);
    expect(report.method.etcdSampled?.length ?? 0).toBe(lowerBound ? 1 : 0);
    expect(report.method.estimated.some((s) => s.includes('lower bound'))).toBe(lowerBound);
    // the lower bound holds whatever a filter keeps: the sampler counted every line
    const filtered = await runCli(['-o', 'json', '--since', new Date(T + 800).toISOString(), '-'], log);
    expect((JSON.parse(filtered.stdout) as ScanReport).method.etcdSampled?.length ?? 0).toBe(lowerBound ? 1 : 0);
  });
});
