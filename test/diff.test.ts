// Issue 47 #1: did the fix work? `audit-scan diff` on fixtures/diff (make-diff-fixtures.mjs): the same cluster an
// hour apart, 20 vector agents listing their node's pods every 30 s for 10 minutes on each side, first without
// resourceVersion (1.29: every list from etcd), then with resourceVersion=0&resourceVersionMatch=NotOlderThan.
// Figures worked out by hand: 400 vector lists a side over 600 s = 40/min, from etcd 40/min → 0; ctl's 60 gets
// without resourceVersion = 6 etcd reads/min on both sides; the reporter's 10 cached lists = 1/min.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditLine, ROOT, runCli, spawnCli } from './support.js';

const BEFORE = join(ROOT, 'fixtures/diff/before.log');
const AFTER = join(ROOT, 'fixtures/diff/after.log');
const TMP = mkdtempSync(join(tmpdir(), 'audit-scan-diff-'));
const V = ['--kube-version', '1.29'];

async function diffJson(args: string[]): Promise<{ code: number | null; d: any; stderr: string }> {
  const r = await spawnCli(['diff', ...V, '-o', 'json', ...args]);
  return { code: r.code, d: r.stdout.length > 0 ? JSON.parse(r.stdout) : null, stderr: r.stderr };
}
/** A log of `perSecond` pod lists a second (from the watch cache) for `seconds`, from `start`, spread evenly. */
function steadyLog(name: string, perSecond: number, seconds: number, start = '2026-11-30T12:00:00Z'): string {
  const t0 = Date.parse(start);
  const lines: string[] = [];
  for (let i = 0; i < perSecond * seconds; i++) {
    const t = new Date(t0 + Math.floor((i * 1000) / perSecond)).toISOString().replace('Z', '000Z');
    lines.push(auditLine({ auditID: `${name}-${i}`, requestURI: '/api/v1/pods?resourceVersion=0', userAgent: 'steady/1.0', requestReceivedTimestamp: t, stageTimestamp: t }));
  }
  const path = join(TMP, name);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}
/** `lists` pod lists by `lister` without resourceVersion (each from etcd, on 1.29), evenly over `seconds` from
 * `start`; and two lists from the cache by `clock`, at the start and half a second before the end, so that the
 * side's window is exactly `seconds` long. */
function etcdLog(name: string, lists: number, seconds: number, start = '2026-11-30T12:00:00Z'): string {
  const at = (ms: number) => new Date(Date.parse(start) + ms).toISOString().replace('Z', '000Z');
  const lines: Array<[number, string]> = [0, seconds * 1000 - 500].map((ms, i) => [ms, auditLine({ auditID: `${name}-c${i}`, requestURI: '/api/v1/pods?resourceVersion=0', userAgent: 'clock/1.0', user: { username: 'clock' }, requestReceivedTimestamp: at(ms), stageTimestamp: at(ms) })]);
  for (let i = 0; i < lists; i++) {
    const ms = Math.floor((i * seconds * 1000) / lists);
    lines.push([ms, auditLine({ auditID: `${name}-${i}`, requestURI: '/api/v1/pods', userAgent: 'lister/1.0', user: { username: 'lister' }, requestReceivedTimestamp: at(ms), stageTimestamp: at(ms) })]);
  }
  const path = join(TMP, name);
  writeFileSync(path, lines.sort((x, y) => x[0] - y[0]).map(([, l]) => l).join('\n') + '\n');
  return path;
}
/** A saved report (audit-scan -o json) of `args`. */
async function savedReport(args: string[], name: string): Promise<string> {
  const r = await spawnCli(['-o', 'json', ...V, ...args]);
  expect(r.code, r.stderr).toBe(0);
  const path = join(TMP, name);
  writeFileSync(path, r.stdout);
  return path;
}
const group = (d: any, client: string, verb = 'list') => d.groups.find((g: any) => g.client === client && g.verb === verb);

describe('audit-scan diff (issue 47 #1)', () => {
  it('the fix worked: vector from 40 etcd reads a minute to 0, its finding gone, the what-if met; exit 0', async () => {
    const { code, d } = await diffJson([BEFORE, AFTER]);
    expect(code).toBe(0);
    expect(d.diffSchemaVersion).toBe(1);
    expect(d.before).toMatchObject({ minutes: 10, requests: 470, requestsPerMinute: 47, etcdPerMinute: 46, nodes: 20 });
    expect(d.after).toMatchObject({ minutes: 10, requests: 470, requestsPerMinute: 47, etcdPerMinute: 6, nodes: 20 });
    expect(d.caveats).toEqual([]);
    // vector/0.34.1 → vector/0.35.0: one client, one group
    expect(group(d, 'vector')).toMatchObject({
      change: 'better',
      selector: 'spec.nodeName=<node>',
      before: { requests: 400, perMinute: 40, etcdPerMinute: 40, etcdShare: 1 },
      after: { requests: 400, perMinute: 40, etcdPerMinute: 0, etcdShare: 0 },
      etcdPerMinuteDelta: -40,
      // the before report's what-if: etcd 460 → 60 with vector fixed, so vector's 400 → 0
      whatIf: { predictedEtcdPerMinute: 0, actualEtcdPerMinute: 0 },
    });
    expect(group(d, 'ctl', 'get')).toMatchObject({ change: 'same', before: { etcdPerMinute: 6 }, after: { etcdPerMinute: 6 } });
    expect(group(d, 'reporter')).toMatchObject({ change: 'same', before: { perMinute: 1, etcdPerMinute: 0 } });
    expect(d.findings).toEqual([expect.objectContaining({ kind: 'list-from-etcd', subject: 'vector', change: 'went away', severityBefore: 'medium', severityAfter: null })]);
    expect(d.worse).toBe(false);
  }, 30_000);

  it('the other way round is a regression: vector worse, its finding appeared; exit 1 for a CI gate', async () => {
    const { code, d } = await diffJson([AFTER, BEFORE]);
    expect(code).toBe(1);
    expect(group(d, 'vector')).toMatchObject({ change: 'worse', etcdPerMinuteDelta: 40 });
    // judged by its rate: before, vector's group read etcd 0 a minute; after, 40
    expect(d.findings[0]).toMatchObject({ kind: 'list-from-etcd', change: 'appeared', severityAfter: 'medium', figure: 'etcd reads', perMinuteBefore: 0, perMinuteAfter: 40, worse: true });
    expect(d.worse).toBe(true);
  }, 30_000);

  it('--split-at cuts one log at the change: the same answer as the two logs', async () => {
    const both = join(TMP, 'both.log');
    writeFileSync(both, Buffer.concat([readFileSync(BEFORE), readFileSync(AFTER)]));
    const split = await diffJson(['--split-at', '2026-11-30T12:30:00Z', both]);
    const two = await diffJson([BEFORE, AFTER]);
    expect(split.code).toBe(0);
    expect(split.d.groups).toEqual(two.d.groups);
    // the pause between the two hours is in the one log, and the restart rules read every line: both sides see
    // the gap 12:09:59.505–13:00:00.005, which the split at 12:30 falls in: cut by it, not "still"
    expect(split.d.findings.filter((f: any) => f.kind !== 'audit-gap')).toEqual(two.d.findings);
    expect(split.d.findings.filter((f: any) => f.kind === 'audit-gap')).toEqual([expect.objectContaining({ change: 'cut by the split', severityBefore: 'info', severityAfter: 'info' })]);
    expect(split.d.worse).toBe(false);
    expect(split.d.before.source).toBe(`${both} until 2026-11-30T12:30:00Z`);
    // a time outside the log: one side is empty, said so, exit 2
    const outside = await diffJson(['--split-at', '2026-12-01T00:00:00Z', both]);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('--split-at 2026-12-01T00:00:00Z: no requests after it');
    expect(outside.stderr).toContain('the time is outside the log');
    // (refused before stdin is read: nothing is written to it, so no EPIPE)
    const stdin = await spawnCli(['diff', '--split-at', '2026-11-30T12:30:00Z', '-']);
    expect(stdin.code).toBe(2);
    expect(stdin.stderr).toContain('--split-at reads the logs twice');
  }, 30_000);

  it('--split-at a change the log shows: the DaemonSet patched by kubectl, not its controller\'s writes', async () => {
    const write = (id: string, t: string, verb: string, user: string, ua: string, sub = '') =>
      JSON.stringify({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: id, stage: 'ResponseComplete', verb, requestURI: `/apis/apps/v1/namespaces/logging/daemonsets/vector${sub ? `/${sub}` : ''}`, user: { username: user }, userAgent: ua, objectRef: { resource: 'daemonsets', apiGroup: 'apps', apiVersion: 'v1', namespace: 'logging', name: 'vector', ...(sub ? { subresource: sub } : {}) }, responseStatus: { code: 200 }, requestReceivedTimestamp: t, stageTimestamp: t });
    const log = join(TMP, 'rollout.log');
    writeFileSync(log, [
      readFileSync(BEFORE, 'utf8').trimEnd(),
      // the controller's status writes are no change; the operator's patch, a second before the after hour, is
      write('ds-1', '2026-11-30T12:09:30.000000Z', 'update', 'system:serviceaccount:kube-system:daemon-set-controller', 'kube-controller-manager/v1.29.4', 'status'),
      write('ds-2', '2026-11-30T12:59:59.000000Z', 'patch', 'alice@example.com', 'kubectl/v1.29.4 (linux/amd64) kubernetes/55cb3b7'),
      readFileSync(AFTER, 'utf8').trimEnd(),
    ].join('\n') + '\n');
    const listed = await spawnCli(['diff', '--changes', log]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toBe('2026-11-30T12:59:59.000Z  daemonset/logging/vector  patch by alice@example.com (kubectl/v1.29.4 (linux/amd64) kubernetes/55cb3b7)\n');
    const split = await diffJson(['--split-at', 'daemonset/logging/vector', log]);
    expect(split.code, split.stderr).toBe(0);
    expect(split.stderr).toContain('audit-scan: diff: split at daemonset/logging/vector, patch by alice@example.com');
    expect(group(split.d, 'vector')).toMatchObject({ change: 'better', before: { etcdPerMinute: 40 }, after: { etcdPerMinute: 0 } });
    const none = await diffJson(['--split-at', 'flowschema/vector', log]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no such change in');
    expect(none.stderr).toContain('2026-11-30T12:59:59.000Z daemonset/logging/vector (patch by alice@example.com)');
  }, 30_000);

  // fixtures/diff/restart.log (make-diff-fixtures.mjs, fixtures/README.md): kube-apiserver's own log at -v=3, two
  // starts: 11:59:40 (v1.29.3, no --goaway-chance, serving 11:59:50) and 12:10:40 (v1.30.1, --goaway-chance="0.001",
  // another signing key file, serving 12:10:50); each then serves ten minutes of the same 70 requests.
  describe('--split-at an apiserver flag changed at a restart (its own log)', () => {
    const LOG = join(ROOT, 'fixtures/diff/restart.log');
    const Y = ['--syslog-year', '2026'];
    const at = (file: string) => `, at a restart of the apiserver in ${file}`;

    it('diff --changes lists the restart\'s changes, the version first, then the flags by name', async () => {
      const r = await spawnCli(['diff', ...Y, '--changes', LOG]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe([
        `2026-11-30T12:10:50.000Z  apiserver-version/v1.30.1  v1.29.3 → v1.30.1${at(LOG)}`,
        `2026-11-30T12:10:50.000Z  apiserver-flag/goaway-chance  (not set) → "0.001"${at(LOG)}`,
        `2026-11-30T12:10:50.000Z  apiserver-flag/service-account-signing-key-file  (set) → (changed)${at(LOG)}`,
        '',
      ].join('\n'));
    }, 30_000);

    it('cuts at the second start\'s "Serving securely" line: 70 requests a side, ten minutes each', async () => {
      const { code, d, stderr } = await diffJson([...Y, '--split-at', 'apiserver-flag/goaway-chance', LOG]);
      expect(code, stderr).toBe(0);
      expect(stderr).toContain(`audit-scan: diff: split at apiserver-flag/goaway-chance, (not set) → "0.001"${at(LOG)} at 2026-11-30T12:10:50.000Z\n`);
      expect(d.before).toMatchObject({ source: `${LOG} until 2026-11-30T12:10:50.000Z`, start: '2026-11-30T12:00:00.000Z', end: '2026-11-30T12:10:00.000Z', minutes: 10, requests: 70, requestsPerMinute: 7, etcdPerMinute: 6 });
      expect(d.after).toMatchObject({ source: `${LOG} from 2026-11-30T12:10:50.000Z`, start: '2026-11-30T12:11:00.000Z', end: '2026-11-30T12:21:00.000Z', minutes: 10, requests: 70, requestsPerMinute: 7, etcdPerMinute: 6 });
      expect(group(d, 'ctl', 'get')).toMatchObject({ change: 'same', before: { requests: 60, etcdPerMinute: 6 }, after: { requests: 60, etcdPerMinute: 6 } });
      // the restart at the split is cut by it; the first start, at the log's head, is the before side's alone
      expect(d.findings.map((f: any) => [f.kind, f.change, f.summaryAfter ?? f.summaryBefore])).toEqual([
        ['apiserver-restart', 'cut by the split', expect.stringContaining('started at 2026-11-30T12:10:50.000Z')],
        ['apiserver-restart', 'went away', expect.stringContaining('started at 2026-11-30T11:59:50.000Z')],
      ]);
      // the version, named or not, is the same restart
      const v = await diffJson([...Y, '--split-at', 'apiserver-version', LOG]);
      expect(v.d.before.source).toBe(`${LOG} until 2026-11-30T12:10:50.000Z`);
    }, 30_000);

    it('each side is read by the release that served it: v1.29.3 before the upgrade, v1.30.1 after, and says so', async () => {
      // without --kube-version (which both sides would be read by): each side's release from the log
      const r = await spawnCli(['diff', '-o', 'json', ...Y, '--split-at', 'apiserver-version', LOG]);
      expect(r.code, r.stderr).toBe(0);
      const d = JSON.parse(r.stdout);
      expect([d.before.kubernetes, d.after.kubernetes]).toEqual(['1.29.3', '1.30.1']);
      expect(d.caveats).toContain('the sides were read by different Kubernetes releases, 1.29.3 before and 1.30.1 after: the watch cache serves more with each release, so a group can move off etcd with the upgrade alone (docs/how-it-decides.md)');
      // one scan of the whole log: the release at its last request, both releases listed, and the way to split
      const whole = JSON.parse((await spawnCli(['-o', 'json', ...Y, LOG])).stdout);
      expect(whole.kubernetes.version).toBe('1.30.1');
      expect(whole.apiserverLog.inputs[0]).toMatchObject({ version: 'v1.30.1', versionsSeen: [{ version: 'v1.29.3', from: '2026-11-30T11:59:40.100Z' }, { version: 'v1.30.1', from: '2026-11-30T12:10:40.100Z' }] });
      expect(whole.apiserverLog.limits).toContain(`${LOG} prints 2 releases (v1.29.3 from 2026-11-30T11:59:40.100Z, v1.30.1 from 2026-11-30T12:10:40.100Z): an upgrade or a rollback at a restart. Its requests are read by the rules of v1.30.1, the release at its last request; \`audit-scan diff --split-at apiserver-version ${LOG}\` compares the two sides`);
      // --until before the second start: its requests were served by v1.29.3 (its lines are still read, for restarts)
      const early = JSON.parse((await spawnCli(['-o', 'json', ...Y, '--until', '2026-11-30T12:10:50Z', LOG])).stdout);
      expect([early.kubernetes.version, early.apiserverLog.inputs[0].version]).toEqual(['1.29.3', 'v1.29.3']);
    }, 30_000);

    it('a flag changed at two restarts: the first, and says so', async () => {
      // a third start at 12:30:00 sets --goaway-chance="0.002", serving at 12:30:10, then one get
      const third = join(TMP, 'three-starts.log');
      const klog = (hms: string, caller: string, msg: string) => `I1130 ${hms}.000000       1 ${caller}] ${msg}`;
      writeFileSync(third, readFileSync(LOG, 'utf8') + [
        klog('12:30:00', 'flags.go:64', 'FLAG: --etcd-servers="https://10.0.0.10:2379"'),
        klog('12:30:00', 'flags.go:64', 'FLAG: --goaway-chance="0.002"'),
        klog('12:30:10', 'secure_serving.go:213', 'Serving securely on [::]:6443'),
        klog('12:30:20', 'httplog.go:132', '"HTTP" verb="GET" URI="/api/v1/namespaces/ops/configmaps/settings" latency="5ms" userAgent="ctl/2.0" audit-ID="3rd" srcIP="10.0.0.1:40000" resp=200'),
      ].join('\n') + '\n');
      const listed = await spawnCli(['diff', ...Y, '--changes', third]);
      expect(listed.stdout).toContain(`2026-11-30T12:30:10.000Z  apiserver-flag/goaway-chance  "0.001" → "0.002"${at(third)}\n`);
      const r = await diffJson([...Y, '--split-at', 'apiserver-flag/goaway-chance', third]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('at 2026-11-30T12:10:50.000Z (the first of 2 restarts that changed it)\n');
      const none = await diffJson([...Y, '--split-at', 'apiserver-flag/max-requests-inflight', third]);
      expect(none.code).toBe(2);
      expect(none.stderr).toContain('2026-11-30T12:10:50.000Z apiserver-flag/goaway-chance ((not set) → "0.001")');
    }, 30_000);

    it('never prints a secret-bearing flag\'s value (the signing key file\'s path holds "CANARY")', async () => {
      const runs = [
        await spawnCli(['diff', ...Y, '--changes', LOG]),
        await spawnCli(['diff', ...Y, '--split-at', 'apiserver-flag/service-account-signing-key-file', LOG]),
        await spawnCli(['diff', ...Y, '--split-at', 'apiserver-flag/nope', LOG]),
        ...(await Promise.all(['json', 'markdown', 'html'].map((o) => spawnCli(['diff', ...Y, '-o', o, '--split-at', 'apiserver-flag/goaway-chance', LOG])))),
      ];
      expect(runs[1]!.stderr).toContain('split at apiserver-flag/service-account-signing-key-file, (set) → (changed)');
      expect(runs[2]!.stderr).toContain('apiserver-flag/service-account-signing-key-file ((set) → (changed))');
      for (const r of runs) expect(r.stdout + r.stderr).not.toMatch(/CANARY|\.key\b/);
    }, 60_000);
  });

  it('the token wave flattened: judged by its peak TokenRequests a second, against the jitter what-if', async () => {
    // both sides: a clock list every 10 s over 12:00:00–12:09:50 (60), and 300 pods' TokenRequests from 12:05:00.
    // Before, 30 a second for 10 s (i × 1000/30 ms): one wave, peak 30/s. After, 1 a second for 300 s (the kubelet's
    // jitter of min(10% TTL, 5 min)): one wave, peak 1/s. 30 → 1 is better; the other way round worse, exit 1.
    const tokenLog = (name: string, stepMs: number): string => {
      const t = (ms: number) => new Date(Date.parse('2026-11-30T12:00:00Z') + ms).toISOString().replace('Z', '000Z');
      const lines: Array<[number, string]> = [];
      for (let i = 0; i < 60; i++) lines.push([i * 10_000, auditLine({ auditID: `${name}-c${i}`, requestURI: '/api/v1/pods?resourceVersion=0', userAgent: 'clock/1.0', user: { username: 'clock' }, requestReceivedTimestamp: t(i * 10_000), stageTimestamp: t(i * 10_000) })]);
      for (let i = 0; i < 300; i++) {
        const ms = 300_000 + Math.floor(i * stepMs);
        lines.push([ms, auditLine({ auditID: `${name}-t${i}`, verb: 'create', requestURI: '/api/v1/namespaces/shop/serviceaccounts/default/token', userAgent: 'kubelet/v1.30.2 (linux/amd64) kubernetes/3968350', user: { username: `system:node:node-${i % 20}` }, objectRef: { resource: 'serviceaccounts', namespace: 'shop', name: 'default', subresource: 'token', apiVersion: 'v1' }, responseStatus: { code: 201 }, requestReceivedTimestamp: t(ms), stageTimestamp: t(ms + 5) })]);
      }
      const path = join(TMP, name);
      writeFileSync(path, lines.sort((x, y) => x[0] - y[0]).map(([, l]) => l).join('\n') + '\n');
      return path;
    };
    const wave = tokenLog('token-wave.log', 1000 / 30);
    const flat = tokenLog('token-flat.log', 1000);
    const predicted = JSON.parse((await spawnCli(['-o', 'json', ...V, wave])).stdout).findings.find((f: any) => f.kind === 'token-refresh-storm').jitter;
    expect(predicted.proposedSeconds).toBe(300);
    const better = await diffJson([wave, flat]);
    expect(better.code, better.stderr).toBe(0);
    expect(better.d.findings.find((f: any) => f.kind === 'token-refresh-storm')).toMatchObject({
      change: 'better', figure: 'peak TokenRequests/s', perMinuteBefore: 30, perMinuteAfter: 1, worse: false,
      whatIf: { proposedJitterSeconds: 300, predictedPeakPerSecond: predicted.predictedPeakWithProposed, actualPeakPerSecond: 1 },
    });
    const text = await spawnCli(['diff', ...V, wave, flat]);
    expect(text.stdout).toContain(`30 → 1 peak TokenRequests/s, a 300 s jitter predicted ${predicted.predictedPeakWithProposed}/s`);
    const worse = await diffJson([flat, wave]);
    expect(worse.code).toBe(1);
    expect(worse.d.findings.find((f: any) => f.kind === 'token-refresh-storm')).toMatchObject({ change: 'worse', perMinuteBefore: 1, perMinuteAfter: 30, worse: true });
  }, 30_000);

  it('saved reports and a DuckDB store are sides too, with the same answer as the logs', async () => {
    const saved = async (f: string, out: string) => {
      const r = await spawnCli(['-o', 'json', ...V, f]);
      expect(r.code, r.stderr).toBe(0);
      writeFileSync(out, r.stdout);
      return out;
    };
    const b = await saved(BEFORE, join(TMP, 'before.json'));
    const a = await saved(AFTER, join(TMP, 'after.json'));
    const fromReports = await diffJson([b, a]);
    const fromLogs = await diffJson([BEFORE, AFTER]);
    expect(fromReports.d.groups).toEqual(fromLogs.d.groups);
    const db = join(TMP, 'after.duckdb');
    const load = await spawnCli(['load', AFTER, '--db', db]);
    expect(load.code, load.stderr).toBe(0);
    const fromStore = await diffJson([b, db]);
    expect(fromStore.code, fromStore.stderr).toBe(0);
    expect(group(fromStore.d, 'vector')).toMatchObject({ change: 'better', after: { etcdPerMinute: 0 } });
  }, 60_000);

  it('says when the sides are unlike: half the nodes and traffic after is not a fix', async () => {
    // the after side with the agents of nodes 0–9 only: 200 vector lists, 10 nodes
    const half = join(TMP, 'half.log');
    writeFileSync(half, readFileSync(AFTER, 'utf8').split('\n').filter((l) => !/node-(1\d)\b|nodeName%3Dnode-1\d/.test(l)).join('\n'));
    const { d } = await diffJson([BEFORE, half]);
    expect(d.after).toMatchObject({ nodes: 10, requests: 270 });
    expect(d.caveats).toEqual([
      "the sides' traffic differs: 47 requests a minute before, 27 after; a quieter hour is not a fix, so compare the clients' own rates below",
      'the sides saw different clusters\' sizes: 20 nodes before, 10 after; per-node clients (DaemonSets, kubelets) scale with them',
    ]);
  }, 30_000);

  it('refuses what it cannot compare, exit 2: another schema version, an empty side, one side', async () => {
    const r = await spawnCli(['-o', 'json', ...V, BEFORE]);
    const old = join(TMP, 'old.json');
    writeFileSync(old, JSON.stringify({ ...JSON.parse(r.stdout), schemaVersion: 2 }));
    const v = await spawnCli(['diff', old, AFTER]);
    expect(v.code).toBe(2);
    expect(v.stderr).toContain('a report of schemaVersion 2; this audit-scan reads schemaVersion 1');
    const empty = join(TMP, 'empty.log');
    writeFileSync(empty, '');
    const e = await spawnCli(['diff', empty, AFTER]);
    expect(e.code).toBe(2);
    expect(e.stderr).toContain('holds no requests (an empty side: nothing to compare)');
    const one = await spawnCli(['diff', AFTER]);
    expect(one.code).toBe(2);
    expect(one.stderr).toContain('expected BEFORE and AFTER (got 1 side)');
  }, 30_000);

  it('prints no terminal controls and escapes HTML and Markdown from the logs', async () => {
    const hostile = join(TMP, 'hostile.log');
    const ua = 'evil\u001b[31m<script>alert(1)</script>|x/1.0';
    writeFileSync(hostile, readFileSync(BEFORE, 'utf8').replaceAll('vector/0.34.1 (x86_64-unknown-linux-gnu)', ua.replace(/[\u001b"\\]/g, (c) => (c === '\u001b' ? '\\u001b' : `\\${c}`))));
    for (const o of ['table', 'markdown', 'html']) {
      const r = await runCli(['diff', ...V, '-o', o, hostile, AFTER]);
      expect(r.stdout, o).not.toContain('\u001b');
      if (o === 'html') {
        expect(r.stdout).not.toContain('<script>');
        expect(r.stdout).toContain('&lt;script&gt;');
        expect(r.stdout).toContain('data-series="2"');
      }
      if (o === 'markdown') expect(r.stdout).not.toMatch(/[^\\]\|x\/1\.0/);
    }
  }, 30_000);

  it('a crafted saved report sends no terminal control through its window or severities (text and Markdown)', async () => {
    const r = await spawnCli(['-o', 'json', ...V, BEFORE]);
    const rep = JSON.parse(r.stdout);
    // an OSC (set the title) and a screen clear in the window's start and end; a colour and a pipe in a severity
    rep.summary.window.start = '\u001b]0;owned\u0007\u001b[2J';
    rep.summary.window.end = '2026-11-30T12:10:00Z\u001b[31m';
    rep.findings[0].severity = '\u001b[31mcritical|x';
    const evil = join(TMP, 'evil.json');
    writeFileSync(evil, JSON.stringify(rep));
    for (const o of ['table', 'markdown', 'html']) {
      const d = await spawnCli(['diff', ...V, '-o', o, evil, AFTER]);
      expect(d.stderr, o).toBe('');
      expect(d.stdout, o).not.toMatch(/[\u0007\u001b\u009b]/);
      // the text is still shown, escaped
      expect(d.stdout, o).toMatch(/x1b\\?\]0;owned\\+x07/);
      if (o === 'markdown') expect(d.stdout).not.toMatch(/critical\|x/);
    }
  }, 30_000);

  it('the HTML chart draws each side in its own bucket width, counts divided once', async () => {
    // 5 lists a second for 120 s: a 10 s bucket holds 50, a 1 s bucket 5, both 5 a second; the axis tops at 5
    // (nice(5)) and both lines run along it: y = 12, the plot's top. Before the fix the 10 s side was divided by 10
    // twice (0.5/s) and the 1 s side by the larger width twice (0.05/s).
    const log = steadyLog('steady.log', 5, 120);
    const b = await savedReport(['--bucket', '10s', log], 'steady-10s.json');
    const a = await savedReport([log], 'steady-1s.json');
    const j = await spawnCli(['diff', ...V, '-o', 'json', b, a]);
    const d = JSON.parse(j.stdout);
    expect(d.series).toMatchObject({ bucketSecondsBefore: 10, bucketSecondsAfter: 1 });
    expect(d.series.before[1]).toEqual([10, 50]);
    expect(d.series.after[1]).toEqual([1, 5]);
    const r = await spawnCli(['diff', ...V, '-o', 'html', b, a]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('text-anchor="end">5</text>');
    const lines = [...r.stdout.matchAll(/<polyline [^>]*points="([^"]*)"/g)].map((m) => m[1]!.split(' ').map((p) => p.split(',')[1]));
    expect(lines).toHaveLength(2);
    for (const ys of lines) expect(new Set(ys)).toEqual(new Set(['12.0']));
  }, 30_000);

  it.each([
    // [the before side's seconds of 5 lists a second, exit status, what it says]: the window is first to last
    // request in whole 1 s buckets; a side under 60 s was counted as a full minute (30 s of 150 lists = "150/min")
    [30, 2, 'its requests cover 30 s (2026-11-30T12:00:00.000Z – 2026-11-30T12:00:30.000Z): a side under 60 s is too short'],
    [59, 2, 'its requests cover 59 s'],
    // 60 s of 300 lists: 300/min, against the after side's 120 s of 600: 300/min, the same
    [60, 0, null],
  ] as const)('a side of %i s: under a minute is refused, exit 2; a minute is judged', async (seconds, code, says) => {
    const b = steadyLog(`short-${seconds}.log`, 5, seconds);
    const a = steadyLog('long-120.log', 5, 120, '2026-11-30T13:00:00Z');
    const r = await diffJson([b, a]);
    expect(r.code, r.stderr).toBe(code);
    if (says !== null) expect(r.stderr).toContain(`before (${b}): ${says}`);
    else expect(r.d.before).toMatchObject({ minutes: 1, requests: 300, requestsPerMinute: 300, activeMinutes: 1, minutesTouched: 1 });
  }, 30_000);

  it('--split-at 30 s before the log ends: the after side is refused as too short, exit 2', async () => {
    // before.log's last request is at 12:09:59.505, so its window ends at 12:10:00: 30 s after the split
    const r = await diffJson(['--split-at', '2026-11-30T12:09:30Z', BEFORE]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`after (${BEFORE}): its requests cover 30 s`);
  }, 30_000);

  it('says how many minutes of a side held requests: a quiet stretch lowers its rates', async () => {
    // 1 list a second over 12:00:00–12:02:00 and 12:04:00–12:05:00: the window is 12:00–12:05, 5 minutes, and
    // minutes 12:00, 12:01 and 12:04 held requests: 3 of 5. 180 lists over 5 minutes = 36/min
    const gap = join(TMP, 'gap.log');
    writeFileSync(gap, readFileSync(steadyLog('gap-a.log', 1, 120), 'utf8') + readFileSync(steadyLog('gap-b.log', 1, 60, '2026-11-30T12:04:00Z'), 'utf8'));
    const steady = steadyLog('steady-300.log', 1, 300, '2026-11-30T13:00:00Z');
    const { code, d } = await diffJson([steady, gap]);
    expect(code).toBe(0);
    expect(d.after).toMatchObject({ minutes: 5, requests: 180, requestsPerMinute: 36, activeMinutes: 3, minutesTouched: 5 });
    expect(d.before).toMatchObject({ minutes: 5, requestsPerMinute: 60, activeMinutes: 5, minutesTouched: 5 });
    expect(d.caveats).toContain('the after side had requests in 3 of the 5 minutes its window touches: its rates are per minute of the whole window, so its quiet minutes lower them');
  }, 30_000);

  describe('a report saved with --top (20 by default) left groups out: they are not new or gone, exit 0', () => {
    // 25 clients, app00–app24, each a configmap get without resourceVersion every 10 s for 2 minutes: 25 get
    // groups, each from etcd; a saved report keeps 20 of them, so 5 are on the log's side only
    const lines: string[] = [];
    for (let k = 0; k < 12; k++)
      for (let i = 0; i < 25; i++) {
        const t = new Date(Date.parse('2026-11-30T12:00:00Z') + k * 10_000 + i * 10).toISOString().replace('Z', '000Z');
        const app = `app${String(i).padStart(2, '0')}`;
        lines.push(auditLine({ auditID: `g-${k}-${i}`, verb: 'get', requestURI: `/api/v1/namespaces/${app}/configmaps/cm`, user: { username: `system:serviceaccount:${app}:${app}` }, userAgent: `${app}/1.0`, objectRef: { resource: 'configmaps', namespace: app, name: 'cm', apiVersion: 'v1' }, requestReceivedTimestamp: t, stageTimestamp: t }));
      }
    const log = join(TMP, 'gets.log');
    writeFileSync(log, lines.join('\n') + '\n');
    it.each([
      ['the cut report before', 'before', false],
      ['the cut report after', 'after', false],
      ['a cut report of an older audit-scan (no getGroupsTotal) before', 'before', true],
    ] as const)('%s', async (_, cutSide, old) => {
      const saved = await savedReport([log], `gets-${cutSide}-${old}.json`);
      const rep = JSON.parse(readFileSync(saved, 'utf8'));
      expect([rep.getGroups.length, rep.getGroupsTotal]).toEqual([20, 25]);
      if (old) {
        delete rep.getGroupsTotal;
        writeFileSync(saved, JSON.stringify(rep));
      }
      const { code, d } = await diffJson(cutSide === 'before' ? [saved, log] : [log, saved]);
      expect(code).toBe(0);
      expect(d.worse).toBe(false);
      const notCompared = d.groups.filter((g: any) => g.change === 'not compared');
      expect(notCompared).toHaveLength(5);
      for (const g of notCompared) expect(g.note).toBe(`not in the ${cutSide} report's top 20 get groups`);
      expect(d.groups.filter((g: any) => g.change === 'same')).toHaveLength(20);
      // the cut side's etcd reads are its totals', not its 20 groups': 300 gets a side, the same on both
      expect(d.before.etcdPerMinute).toBe(d.after.etcdPerMinute);
      expect(d.caveats.join('\n')).toContain(`the ${cutSide} report was saved with --top and holds its top 20 get groups${old ? ' (it does not say how many get groups it saw' : ' (20 of its 25 groups)'}`);
      expect(d.caveats.join('\n')).toContain('5 groups of the other side are not in it, so not compared (neither new nor gone)');
    }, 30_000);
  });

  it('one client\'s findings on two resources are two findings; a what-if is its own group\'s (verb, API group)', async () => {
    // elector, 2 minutes a side: 1,200 lease gets (coordination.k8s.io, 10 a second), 60 pod lists and 60 secret
    // lists (one each every 2 s), 12 pod gets (one every 10 s), all without resourceVersion before. After, the lease
    // gets and the pod lists send resourceVersion=0; the secret lists and pod gets do not.
    // By hand, per minute: lease gets 600 → 0 from etcd, pod lists 30 → 0, secret lists 30 → 30, pod gets 6 → 6.
    // Findings before: get-from-etcd on the leases (1,200 ≥ 1,000; medium: ≥ 10% of 1,332 requests), list-from-etcd
    // on the pods and on the secrets (60 ≥ 10 each; low). Each has a what-if moving its etcd reads to the cache:
    // predicted 0 a minute for its own group only: not for the pod gets, which no finding is about.
    const line = (id: string, t: string, verb: string, uri: string, resource: string, apiGroup: string, name?: string) =>
      JSON.stringify({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: id, stage: 'ResponseComplete', requestURI: uri, verb, user: { username: 'system:serviceaccount:kube-system:elector' }, userAgent: 'elector/1.0', objectRef: { resource, namespace: 'kube-system', ...(name ? { name } : {}), apiGroup, apiVersion: 'v1' }, responseStatus: { code: 200 }, requestReceivedTimestamp: t, stageTimestamp: t });
    const side = (name: string, start: string, fixed: boolean): string => {
      const at = (ms: number) => new Date(Date.parse(start) + ms).toISOString().replace('Z', '000Z');
      const out: Array<[number, string]> = [];
      for (let i = 0; i < 1200; i++) out.push([i * 100, line(`l${i}`, at(i * 100), 'get', `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/elector${fixed ? '?resourceVersion=0' : ''}`, 'leases', 'coordination.k8s.io', 'elector')]);
      for (let i = 0; i < 60; i++) out.push([i * 2000 + 50, line(`p${i}`, at(i * 2000 + 50), 'list', `/api/v1/namespaces/kube-system/pods${fixed ? '?resourceVersion=0&resourceVersionMatch=NotOlderThan' : ''}`, 'pods', '')]);
      for (let i = 0; i < 60; i++) out.push([i * 2000 + 60, line(`s${i}`, at(i * 2000 + 60), 'list', '/api/v1/namespaces/kube-system/secrets', 'secrets', '')]);
      for (let i = 0; i < 12; i++) out.push([i * 10000 + 70, line(`g${i}`, at(i * 10000 + 70), 'get', '/api/v1/namespaces/kube-system/pods/elector-0', 'pods', '', 'elector-0')]);
      const path = join(TMP, name);
      writeFileSync(path, out.sort((x, y) => x[0] - y[0]).map(([, l]) => l).join('\n') + '\n');
      return path;
    };
    const b = side('elector-before.log', '2026-11-30T12:00:00Z', false);
    const a = side('elector-after.log', '2026-11-30T13:00:00Z', true);
    const { code, d } = await diffJson([b, a]);
    expect(code).toBe(0);
    const g = (verb: string, resource: string) => d.groups.find((x: any) => x.client === 'elector' && x.verb === verb && x.resource === resource);
    expect.soft(g('get', 'leases.coordination.k8s.io')).toMatchObject({ change: 'better', before: { etcdPerMinute: 600 }, after: { etcdPerMinute: 0 }, whatIf: { predictedEtcdPerMinute: 0, actualEtcdPerMinute: 0 } });
    expect.soft(g('list', 'pods')).toMatchObject({ change: 'better', before: { etcdPerMinute: 30 }, whatIf: { predictedEtcdPerMinute: 0, actualEtcdPerMinute: 0 } });
    expect.soft(g('list', 'secrets')).toMatchObject({ change: 'same', before: { etcdPerMinute: 30 }, whatIf: { predictedEtcdPerMinute: 0, actualEtcdPerMinute: 30 } });
    expect.soft(g('get', 'pods')).toMatchObject({ change: 'same', before: { etcdPerMinute: 6 }, whatIf: null });
    expect(d.findings.map((f: any) => [f.kind, f.subject, f.resource, f.change, f.severityBefore, f.severityAfter])).toEqual([
      ['list-from-etcd', 'elector', 'secrets', 'still', 'low', 'low'],
      ['get-from-etcd', 'elector', 'leases.coordination.k8s.io', 'went away', 'medium', null],
      ['list-from-etcd', 'elector', 'pods', 'went away', 'low', null],
    ]);
    const t = await spawnCli(['diff', ...V, b, a]);
    expect(t.stdout).toContain('still: list-from-etcd elector secrets (30 etcd reads/min; low → low)');
    // a before report of an older audit-scan: findings without a selector, the get's resource without its group
    const old = JSON.parse(readFileSync(await savedReport([b], 'elector-old.json'), 'utf8'));
    for (const f of old.findings) {
      delete f.selector;
      if (f.kind === 'get-from-etcd') f.resource = 'leases';
    }
    writeFileSync(join(TMP, 'elector-old.json'), JSON.stringify(old));
    const fromOld = await diffJson([join(TMP, 'elector-old.json'), a]);
    expect(fromOld.d.groups).toEqual(d.groups);
    expect(fromOld.d.findings.map((f: any) => [f.kind, f.change])).toEqual([['list-from-etcd', 'still'], ['get-from-etcd', 'went away'], ['list-from-etcd', 'went away']]);
  }, 30_000);

  describe('a finding is judged by its etcd reads a minute, not its severity (a threshold on counts)', () => {
    // before.log cut at 12:01: vector's 20 agents list every 30 s, so 40 lists in the first minute (low: < 100)
    // and 360 in the other 9 (medium: ≥ 100): 40 a minute on both sides
    const cut = (name: string, keep: (t: string) => boolean) => {
      const path = join(TMP, name);
      writeFileSync(path, readFileSync(BEFORE, 'utf8').split('\n').filter((l) => l !== '' && keep(JSON.parse(l).requestReceivedTimestamp)).join('\n') + '\n');
      return path;
    };
    it.each([
      ['one log cut in 1 and 9 minutes: the same 40 a minute', () => [cut('first.log', (t) => t < '2026-11-30T12:01'), cut('rest.log', (t) => t >= '2026-11-30T12:01')], 'vector', 'still', 40, 40, 'low', 'medium', 0],
      // 100 lists over 10 minutes, then 100 over 5: medium both, 10 → 20 a minute (+100%, +10)
      ['the same severity at twice the rate', () => [etcdLog('r10.log', 100, 600), etcdLog('r20.log', 100, 300, '2026-11-30T13:00:00Z')], 'lister', 'worse', 10, 20, 'medium', 'medium', 1],
      // 9 lists in a minute: under a finding's 10; 108 over 12 minutes: medium (≥ 100); 9 a minute on both sides
      ['appeared at the rate its group had before', () => [etcdLog('r9a.log', 9, 60), etcdLog('r9b.log', 108, 720, '2026-11-30T13:00:00Z')], 'lister', 'appeared', 9, 9, null, 'medium', 0],
      // 216 over 12 minutes: 18 a minute, twice the before side's 9
      ['appeared at a higher rate than its group had before', () => [etcdLog('r9c.log', 9, 60), etcdLog('r18.log', 216, 720, '2026-11-30T13:00:00Z')], 'lister', 'appeared', 9, 18, null, 'medium', 1],
    ] as const)('%s', async (_, sides, client, change, pmB, pmA, sevB, sevA, code) => {
      const r = await diffJson(sides());
      expect(r.code, r.stderr).toBe(code);
      expect(r.d.findings.filter((f: any) => f.subject === client)).toEqual([
        expect.objectContaining({ kind: 'list-from-etcd', change, figure: 'etcd reads', perMinuteBefore: pmB, perMinuteAfter: pmA, severityBefore: sevB, severityAfter: sevA, worse: code === 1 }),
      ]);
      expect(r.d.worse).toBe(code === 1);
    }, 30_000);
  });
});
