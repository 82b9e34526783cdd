// Test helpers: run the CLI in-process with captured streams, or as a real child process.
import { PassThrough, Readable, Writable } from 'node:stream';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { run } from '../src/cli/main.js';
import type { GroupReport } from '../src/analyze/report.js';
import type { AnyFinding, Finding } from '../src/analyze/findings.js';
import type { ParseResult } from '../src/decode/result.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BIN = fileURLToPath(new URL('../bin/audit-scan.js', import.meta.url));

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.text += chunk.toString('utf8');
    cb();
  }
}

/** Runs audit-scan in-process: fixed width, no colour, UTC. */
export async function runCli(args: string[], stdinText: string | Buffer | null = null, opts: { stdinIsTTY?: boolean } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new Sink();
  const stderr = new Sink();
  const stdin = stdinText === null ? new PassThrough() : Readable.from([Buffer.from(stdinText)]);
  if (stdinText === null) (stdin as PassThrough).end();
  // AUDIT_SCAN_ENGINE passes through: the mutation run reads every line in JavaScript, so the JavaScript path's
  // mutants meet every test (npm run test:mutation; vitest.mutation.config.ts).
  const env: Record<string, string> = { NO_COLOR: '1', TZ: 'UTC' };
  if (process.env.AUDIT_SCAN_ENGINE !== undefined) env.AUDIT_SCAN_ENGINE = process.env.AUDIT_SCAN_ENGINE;
  const code = await run(args, { stdin, stdout, stderr, stdinIsTTY: opts.stdinIsTTY ?? false, stdoutIsTTY: false, columns: undefined, env });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** Runs bin/audit-scan.js (or `bin`) as a child process. `nodeArgs` go before the script (e.g. --import a preload). */
export function spawnCli(args: string[], stdin: Buffer | string | null = null, opts: { nodeArgs?: string[]; env?: Record<string, string>; bin?: string; cwd?: string } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), opts.bin ?? BIN, ...args], { cwd: opts.cwd ?? ROOT, env: { ...process.env, NO_COLOR: '1', TZ: 'UTC', ...opts.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (stdin !== null) child.stdin.end(stdin);
    else child.stdin.end();
  });
}

/** One audit event line with sensible defaults. */
export function auditLine(f: Record<string, unknown>): string {
  return JSON.stringify({
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID: 'id-1',
    stage: 'ResponseComplete',
    requestURI: '/api/v1/pods',
    verb: 'list',
    user: { username: 'u' },
    userAgent: 'ua/1',
    objectRef: { resource: 'pods', apiVersion: 'v1' },
    responseStatus: { code: 200 },
    requestReceivedTimestamp: '2026-01-01T00:00:00.000000Z',
    stageTimestamp: '2026-01-01T00:00:00.100000Z',
    ...f,
  });
}

/** Runs the CLI as a child process and returns its peak RSS in KB as well (test/rss-preload.mjs). */
export async function spawnCliRss(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; maxRssKb: number }> {
  const r = await spawnCli(args, null, { nodeArgs: ['--import', fileURLToPath(new URL('./rss-preload.mjs', import.meta.url))] });
  const m = /maxrss-kb=(\d+)/.exec(r.stderr);
  return { ...r, maxRssKb: m ? Number(m[1]) : NaN };
}

/** A GroupReport with every field at its empty value, for tests of the code that reads reports. */
export function groupReport(over: Partial<GroupReport> = {}): GroupReport {
  return {
    verb: 'list', watchLists: 0, userAgent: 'agent/1', username: 'system:serviceaccount:ops:agent', resource: 'pods', apiGroup: '', namespace: null, namespaces: 0, selector: '', requests: 1, nodes: 0, withoutResourceVersion: 0,
    servedFrom: { etcd: 1, cache: 0, unknown: 0, rejected: 0 }, rejectedInitializing: 0, reasons: {}, objectsReadPerRequest: null, objectsReturnedPerRequest: null, bytesReadPerRequest: null, bytesReadTotal: null, amplification: null, estimated: false,
    figureSources: { objectsRead: null, objectsReturned: null, bytesRead: null }, codes: {}, firstSeen: null, lastSeen: null, latencyMs: null, etcdLatencyMs: null, apfQueueWaitMs: null,
    ...over,
  };
}


/** Runs audit-scan in-process with `-o json` and returns the exit code and the parsed report. */
export async function scanJson(args: string[], stdinText: string | Buffer | null = null): Promise<{ code: number; r: import('../src/analyze/report.js').ScanReport; stderr: string }> {
  const res = await runCli(['-o', 'json', ...args], stdinText);
  return { code: res.code, r: JSON.parse(res.stdout), stderr: res.stderr };
}

/** A finding of kind K: its own shape, or a Finding (whose kind is any other string). */
type FindingOf<K> = [Extract<AnyFinding, { kind: K }>] extends [never] ? Finding : Extract<AnyFinding, { kind: K }>;

/** The findings of one kind, typed as that kind's. */
export function findingsOf<K extends string>(r: { findings: AnyFinding[] }, kind: K): Array<FindingOf<K>> {
  return r.findings.filter((f) => f.kind === kind) as Array<FindingOf<K>>;
}

/** A parser's value, or the test fails with its reason. */
export function valueOf<T>(r: ParseResult<T>): T {
  if (!r.ok) throw new Error(r.reason);
  return r.value;
}
