// Lines a real etcd 3.4.23 wrote (test/etcd-real.test.ts, Debian's etcd-server), copied verbatim, that the
// transcribed fixtures lacked and audit-scan read wrong:
// - with --logger=capnslog (3.4's default) every log holds raft's own Go-logger lines ("raft2026/12/02 … INFO: …")
//   and a "[WARNING] Deprecated '--logger=capnslog' flag …" line (twice), and often gRPC's ("WARNING: 2026/12/02 …
//   grpc: …"): they were skipped lines ("not a known format", "not JSON"), so every real 3.4 capnslog log warned of
//   skipped lines and failed --strict;
// - a keys_only range (1.34+ apiservers count objects with it) was a client's full list of the resource;
// - zap's raft messages name the member and term, and each became a kind of its own in otherKinds.
import { describe, expect, it } from 'vitest';
import { classifyLine } from '../../src/decode/line-kind.js';
import { parseEtcdCapnslog, parseEtcdZap } from '../../src/decode/etcd-line.js';
import { internalReason } from '../../src/aggregate/etcd-reads.js';
import { describeEtcdKey } from '../../src/model/etcd-key.js';
import { runCli } from '../support.js';

const RAFT = 'raft2026/12/02 14:54:46 INFO: b5a1542842a61196 became leader at term 2';
const NEW_RAFT = 'raft2026/12/02 14:52:31 INFO: newRaft c53e2418d2a308ef [peers: [], term: 0, commit: 0, applied: 0, lastindex: 0, lastterm: 0]';
const GRPC = 'WARNING: 2026/12/02 14:57:33 [core] grpc: addrConn.createTransport failed to connect to {127.0.0.1:37871 127.0.0.1:37871 <nil> 0 <nil>}. Err: connection error: desc = "transport: Error while dialing dial tcp 127.0.0.1:37871: connect: connection refused". Reconnecting...';
const FLAG = "[WARNING] Deprecated '--logger=capnslog' flag is set; use '--logger=zap' flag instead";

describe('line forms of a real etcd 3.4 log', () => {
  it.each([
    ['raft, capnslog mode', RAFT, { kind: 'other', what: 'etcd raft' }],
    ['raft, a bracket in the message', NEW_RAFT, { kind: 'other', what: 'etcd raft' }],
    ['raft, a warning', 'raft2026/12/02 14:54:46 WARN: b5a1542842a61196 stepped down to follower since quorum is not active', { kind: 'other', what: 'etcd raft' }],
    ['raft, under kubectl logs --timestamps', `2026-12-02T14:54:46.411233Z ${RAFT}`, { kind: 'other', what: 'etcd raft' }],
    ['the flag warning', FLAG, { kind: 'other', what: 'etcd flag warning' }],
    ['the flag warning, under kubectl logs --timestamps', `2026-12-02T14:54:46.411233Z ${FLAG}`, { kind: 'other', what: 'etcd flag warning' }],
    ['the flag warning of --debug', "[WARNING] Deprecated '--debug' flag is set to true (use '--log-level=debug' instead", { kind: 'other', what: 'etcd flag warning' }],
    ['gRPC, on shutdown', GRPC, { kind: 'other', what: 'grpc' }],
    ['gRPC, an older form without the component', 'WARNING: 2020/06/30 01:17:40 grpc: Server.processUnaryRPC failed to write status: connection error: desc = "transport is closing"', { kind: 'other', what: 'grpc' }],
    // what stays as it was
    ['a JSON array', '[{"kind":"Event"}]', { kind: 'json' }],
    ['another bracketed word', '[WARNING] something else', { kind: 'json' }],
    ['"raft" and no Go-log time', 'raft: hello', { kind: 'unknown' }],
    ['a Go-log time without a level', 'raft2026/12/02 14:54:46 hello', { kind: 'unknown' }],
    ['a level without a Go-log time', 'WARNING: something happened', { kind: 'unknown' }],
  ])('%s', (_name, line, want) => {
    expect(classifyLine(line)).toMatchObject(want);
  });

  it('a CRI line carrying them is read again without its prefix, as the same kinds', () => {
    const cri = classifyLine(`2026-12-02T14:54:46.411233000Z stderr F ${FLAG}`);
    expect(cri).toEqual({ kind: 'cri', text: FLAG });
    expect(classifyLine(FLAG)).toEqual({ kind: 'other', what: 'etcd flag warning' });
  });

  it.each([
    ['zap raft', { level: 'info', ts: '2026-12-02T14:54:39.445Z', caller: 'raft/raft.go:771', msg: 'be9e2893f4f20286 became leader at term 2' }, 'raft'],
    ['zap raft node', { level: 'info', ts: '2026-12-02T14:54:39.445Z', caller: 'raft/node.go:327', msg: 'raft.node: be9e2893f4f20286 elected leader be9e2893f4f20286 at term 2' }, 'raft'],
    ['zap, another package', { level: 'info', ts: '2026-12-02T14:54:39.445Z', caller: 'embed/etcd.go:375', msg: 'closed etcd server' }, 'closed etcd server'],
    ['zap rafthttp is not raft', { level: 'info', ts: '2026-12-02T14:54:39.445Z', caller: 'rafthttp/peer.go:128', msg: 'starting remote peer' }, 'starting remote peer'],
  ])('%s: one kind for every member and term', (_name, o, what) => {
    expect(parseEtcdZap(o)).toMatchObject({ kind: 'other', what, tsMs: Date.parse(o.ts) });
  });

  const zap = (request: string, response: string): Record<string, unknown> => ({
    level: 'warn', ts: '2026-12-02T14:54:43.639Z', caller: 'etcdserver/util.go:167', msg: 'apply request took too long', took: '10.68389ms', 'expected-duration': '0s', prefix: 'read-only range ', request, response,
  });
  it.each([
    [
      'a full list, zap',
      parseEtcdZap(zap('key:"/registry/pods/" range_end:"/registry/pods0" ', 'range_response_count:7130 size:13633111')),
      { key: '/registry/pods/', rangeEnd: '/registry/pods0', limit: 0, objects: 7130, bytes: 13_633_111 },
      null,
    ],
    [
      'a full list, capnslog',
      parseEtcdCapnslog('2026-12-02 14:52:34.691812 W | etcdserver: read-only range request "key:\\"/registry/pods/\\" range_end:\\"/registry/pods0\\" " with result "range_response_count:7130 size:13633111" took too long (21.040884ms) to execute'),
      { key: '/registry/pods/', rangeEnd: '/registry/pods0', limit: 0, objects: 7130, bytes: 13_633_111, tookMs: 21.040884 },
      null,
    ],
    [
      'a continued page, capnslog',
      parseEtcdCapnslog('2026-12-02 14:54:49.846693 W | etcdserver: read-only range request "key:\\"/registry/pods/team-a/pod-00389\\\\000\\" range_end:\\"/registry/pods0\\" limit:500 revision:9 " with result "range_response_count:500 size:956012" took too long (1.90024ms) to execute'),
      { key: '/registry/pods/team-a/pod-00389\0', rangeEnd: '/registry/pods0', limit: 500, revision: 9, objects: 500, bytes: 956_012 },
      null,
    ],
    [
      'keys_only, zap',
      parseEtcdZap(zap('key:"/registry/pods/" range_end:"/registry/pods0" keys_only:true ', 'range_response_count:7130 size:292887')),
      { keysOnly: true, objects: 7130, bytes: 292_887 },
      'keys_only (object-count stats, 1.34+)',
    ],
    [
      'keys_only, capnslog',
      parseEtcdCapnslog('2026-12-02 14:54:50.614857 W | etcdserver: read-only range request "key:\\"/registry/pods/\\" range_end:\\"/registry/pods0\\" keys_only:true " with result "range_response_count:7130 size:292887" took too long (16.429527ms) to execute'),
      { keysOnly: true, objects: 7130, bytes: 292_887 },
      'keys_only (object-count stats, 1.34+)',
    ],
    [
      'count_only, capnslog',
      parseEtcdCapnslog('2026-12-02 14:54:50.593486 W | etcdserver: read-only range request "key:\\"/registry/pods/\\" range_end:\\"/registry/pods0\\" count_only:true " with result "range_response_count:0 size:7" took too long (952.298µs) to execute'),
      { countOnly: true, objects: 0, bytes: 7, tookMs: 0.952298 },
      'count_only (object-count polling)',
    ],
    [
      'the health key, zap',
      parseEtcdZap(zap('key:"/registry/health" ', 'range_response_count:0 size:4')),
      { key: '/registry/health', rangeEnd: null, objects: 0, bytes: 4 },
      'health check',
    ],
  ])('%s: read as etcd wrote it, and told apart', (_name, e, fields, reason) => {
    expect(e).toMatchObject({ kind: 'range', ...fields });
    if (e?.kind !== 'range') return;
    expect(internalReason(e, describeEtcdKey(e.key, e.rangeEnd, null), null)).toBe(reason);
  });

  it('the head of a real capnslog log: nothing skipped', async () => {
    const log = [
      FLAG,
      '2026-12-02 14:49:15.582656 I | etcdmain: etcd Version: 3.4.23',
      FLAG,
      '2026-12-02 14:49:15.588149 I | etcdserver: starting member bdae9bbc11dd390d in cluster d1cfaf999eb97a2a',
      'raft2026/12/02 14:49:15 INFO: bdae9bbc11dd390d switched to configuration voters=()',
      NEW_RAFT,
      RAFT,
      GRPC,
      '2026-12-02 14:49:17.610878 W | etcdserver: read-only range request "key:\\"/registry/pods/a/b\\\\000\\" range_end:\\"/registry/pods0\\" limit:500 " with result "range_response_count:0 size:4" took too long (145.557µs) to execute',
    ].join('\n');
    const r = await runCli(['-o', 'json', '-'], log + '\n');
    expect(r.code, r.stderr).toBe(0);
    const input = (JSON.parse(r.stdout) as { inputs: Array<{ skippedLines: number; etcdEntries: number; otherKinds: Record<string, number> }> }).inputs[0]!;
    expect([input.skippedLines, input.etcdEntries, input.otherKinds['etcd raft'], input.otherKinds['etcd flag warning'], input.otherKinds.grpc]).toEqual([0, 1, 3, 2, 1]);
  });
});
