// Property test (issue 4): random valid events mixed with random corruptions. Whatever the corruption, every
// valid event is recovered exactly, and the answer does not depend on how the bytes arrive: whole, in 1-byte
// chunks, split across two files, gzipped, or read by several threads. Seeded, so a failure reproduces.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { run } from '../src/cli/main.js';
import type { ScanReport } from '../src/analyze/report.js';
import { mulberry32 } from '../fixtures/prng.mjs';

const rng = mulberry32;

interface Case {
  bytes: Buffer;
  cut: number; // a line boundary for the two-file split
  requests: number;
  lists: number;
}

function makeCase(seed: number): Case {
  const r = rng(seed);
  const pick = <T,>(a: T[]): T => a[Math.floor(r() * a.length)]!;
  const lines: string[] = [];
  let requests = 0;
  let lists = 0;
  const n = 40 + Math.floor(r() * 80);
  for (let i = 0; i < n; i++) {
    const verb = pick(['list', 'get', 'watch', 'update', 'create']);
    const node = `n${Math.floor(r() * 5)}`;
    const uri =
      verb === 'list'
        ? pick([`/api/v1/pods?fieldSelector=spec.nodeName%3D${node}`, '/api/v1/pods?limit=500&resourceVersion=0', '/api/v1/namespaces/a/configmaps?limit=500', '/api/v1/pods?continue=abc&limit=500'])
        : verb === 'get'
          ? `/api/v1/namespaces/a/pods/p${i}`
          : verb === 'watch'
            ? `/api/v1/pods?resourceVersion=${i}&watch=true`
            : `/api/v1/namespaces/a/configmaps/c${i}`;
    const t = Date.UTC(2026, 0, 1, 0, 0, 0) + i * 137;
    const base = {
      kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: pick(['Metadata', 'Request']), auditID: `s${seed}-${i}`,
      requestURI: uri, verb, user: { username: pick(['system:serviceaccount:x:y', `system:node:${node}`, 'alice']) },
      sourceIPs: ['10.0.0.1'], userAgent: pick(['a/1', 'b/2 (linux)', 'ünïcode/3']),
      objectRef: { resource: uri.includes('configmaps') ? 'configmaps' : 'pods', namespace: uri.includes('/namespaces/a/') ? 'a' : undefined, apiVersion: 'v1' },
      requestReceivedTimestamp: new Date(t).toISOString(),
    };
    const two = r() < 0.3;
    if (two) lines.push(JSON.stringify({ ...base, stage: 'RequestReceived', stageTimestamp: new Date(t).toISOString() }));
    lines.push(JSON.stringify({ ...base, stage: 'ResponseComplete', responseStatus: { metadata: {}, code: 200 }, stageTimestamp: new Date(t + 5).toISOString() }));
    requests++;
    if (verb === 'list') lists++;
    // corruption between events
    const c = r();
    if (c < 0.08) lines.push('garbage ' + Math.floor(r() * 1e9));
    else if (c < 0.14) lines.push('{"kind":"Event","auditID":"cut-' + i);
    else if (c < 0.18) lines.push('');
    else if (c < 0.22) lines.push('I0101 00:00:00.000000       1 x.go:1] klog line ' + i);
    else if (c < 0.25) lines.push('{"kind": 0}');
    else if (c < 0.28) lines.push('\u0000\u0000\u0000' + lines.pop());
  }
  const eol = r() < 0.5 ? '\n' : '\r\n';
  let text = (r() < 0.3 ? '\ufeff' : '') + lines.join(eol) + eol;
  if (r() < 0.3) text += '{"kind":"Event","truncated":'; // a rotated log cut mid-line
  const bytes = Buffer.from(text);
  // a line boundary near the middle for the two-file split
  const cut = bytes.indexOf(10, Math.floor(bytes.length / 2)) + 1;
  return { bytes, cut, requests, lists };
}

async function scan(args: string[], stdin: Readable | null = null, env: Record<string, string> = {}): Promise<ScanReport> {
  let out = '';
  const stdout = new Writable({ write: (c, _e, cb) => ((out += c), cb()) });
  const stderr = new Writable({ write: (_c, _e, cb) => cb() });
  const code = await run(['-o', 'json', '-n', '100', ...args], { stdin: stdin ?? Readable.from([]), stdout, stderr, stdinIsTTY: false, stdoutIsTTY: false, columns: undefined, env });
  expect(code).toBe(0);
  return JSON.parse(out) as ScanReport;
}

/** What must not depend on how the bytes arrived. */
function answer(r: ScanReport) {
  const sum = (k: 'lines' | 'auditEvents' | 'skippedLines' | 'otherLines' | 'blankLines' | 'repairedLines') => r.inputs.reduce((s, i) => s + i[k], 0);
  return { totals: r.totals, listGroups: r.listGroups, getGroups: r.getGroups, findings: r.findings, topUserAgents: r.topUserAgents, auditEvents: sum('auditEvents'), repaired: sum('repairedLines') };
}

describe('property: valid events survive any corruption and any delivery', () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-scan-prop-'));
  it.each(Array.from({ length: 12 }, (_, i) => i + 1))('seed %i', async (seed) => {
    const c = makeCase(seed);
    const whole = join(dir, `s${seed}.log`);
    writeFileSync(whole, c.bytes);
    const a = await scan([whole]);
    expect(a.totals.requests).toBe(c.requests);
    expect(a.totals.listRequests).toBe(c.lists);
    const ref = answer(a);
    // 1-byte chunks on stdin
    const bytes = [...c.bytes].map((b) => Buffer.from([b]));
    expect(answer(await scan(['-'], Readable.from(bytes)))).toEqual(ref);
    // gzipped
    const gz = join(dir, `s${seed}.log.gz`);
    writeFileSync(gz, gzipSync(c.bytes));
    expect(answer(await scan([gz]))).toEqual(ref);
    // split across two files at a line boundary (the second keeps no BOM)
    const p1 = join(dir, `s${seed}.part1.log`);
    const p2 = join(dir, `s${seed}.part2.log`);
    writeFileSync(p1, c.bytes.subarray(0, c.cut));
    writeFileSync(p2, c.bytes.subarray(c.cut));
    const split = answer(await scan([p1, p2]));
    expect({ ...split, totals: { ...split.totals } }).toEqual(ref);
    // two threads, cut every 512 bytes
    expect(answer(await scan(['-j', '2', whole], null, { AUDIT_SCAN_MIN_SPLIT_BYTES: '512' }))).toEqual(ref);
  }, 60_000);
});
