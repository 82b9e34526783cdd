// The compiled engine reads kube-apiserver's httplog lines (its own log at -v>=3) as the JavaScript path reads
// them (decode/apiserver-log.ts, apiserver-log-reader.ts, decode/request-uri.ts): every line it takes gives the
// request record the reader makes of it, field for field; every line it cannot read so is declined (the host then
// reads it in JavaScript). Then whole logs of such lines, mixed with trace blocks, give the same report byte for
// byte on the engine (1 and 3 threads, small aggregator tables) and on the JavaScript path.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnCli } from './support.js';
import { loadEngine, type LineEngine } from '../src/decode/engine/engine.js';
import { LineDecoder, newDecodeSegment, type DecodeCounts } from '../src/decode/line-decoder.js';
import type { AuditEvent } from '../src/model/audit-event.js';
import { mulberry32 } from '../fixtures/prng.mjs';

const NOW = Date.UTC(2026, 11, 7, 12, 0, 0);
const H = 'I1130 10:00:00.002001       1 httplog.go:132] ';
const TAIL = ' apf_pl="system" apf_fs="system-nodes" apf_iseats=1 apf_fseats=0 apf_additionalLatency="0s" apf_execution_time="2ms"';
const line = (verb: string, uri: string, more = '', resp = '200'): string =>
  `${H}"HTTP" verb="${verb}" URI="${uri}" latency="3.250681ms" userAgent="kubelet/v1.29.4 (linux/amd64) kubernetes/55cb3b7" audit-ID="9e3779b1-0000-4000-8000-000000000001" srcIP="10.0.1.7:30001"${TAIL}${more} resp=${resp}`;

/** The JavaScript reader's records of `text` (one line), and whether it read the line as a request. */
function jsRecords(text: string): AuditEvent[] {
  const out: AuditEvent[] = [];
  let ids = 0;
  const counts = { apiserverLog: undefined } as unknown as DecodeCounts;
  const d = new LineDecoder(
    {
      counts: () => counts,
      auditEvent: (e) => out.push(e),
      etcdEntry: () => {},
      restartSign: () => {},
      syntheticId: () => `(no auditID s.${++ids})`,
    },
    NOW,
    null,
    null,
  );
  d.seg = newDecodeSegment();
  d.addLine(1, text, true, false);
  d.endSegment();
  return out;
}

const loaded = loadEngine();
const engine: LineEngine | null = loaded.engine;

/** The engine's record of `text`, as the host makes it (logEvent), or null when the engine declines the line. */
function engineRecord(text: string): AuditEvent | null {
  const eng = engine!;
  eng.setKlogClock(NOW, null);
  const buf = Buffer.from(text + '\n');
  let got: AuditEvent | null = null;
  eng.readLines(buf, 0, buf.length, 1 << 20, 0, (l) => {
    if (l.accepted && l.log) {
      const e = eng.logEvent();
      if (l.missingId) e.auditID = '(no auditID s.1)';
      got = e;
    }
  });
  return got;
}

/** What the record says, without the engine's own extras (the parsed query it hands on, its selector memo key). */
function fields(e: AuditEvent): Record<string, unknown> {
  const { query: _q, selectorKey: _k, ...rest } = e as AuditEvent & { selectorKey?: number };
  return rest;
}

// [what, line, taken by the engine]
const LINES: Array<[string, string, boolean]> = [
  ['a LIST of pods by node, cluster scope', line('LIST', '/api/v1/pods?fieldSelector=spec.nodeName%3Dip-10-0-1-7&limit=500&resourceVersion=0'), true],
  ['a GET by name, namespaced, group', line('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/ip-10-0-1-7?timeout=10s'), true],
  ['GET of a collection is a list', line('GET', '/api/v1/namespaces/shop/configmaps'), true],
  ['a WATCH (1.22+ verb)', line('WATCH', '/api/v1/pods?allowWatchBookmarks=true&resourceVersion=12&watch=true'), true],
  ['GET with watch=1 is a watch', line('GET', '/api/v1/pods?watch=1'), true],
  ['GET with WATCH=TRUE (any case) is a watch', line('GET', '/api/v1/pods?WATCH=TRUE'), true],
  ['a WATCHLIST', line('WATCHLIST', '/api/v1/pods?sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&watch=true'), true],
  ['a watch begun (resp=0, 1.30.0-1.30.3)', line('WATCH', '/api/v1/pods?watch=true', '', '0'), true],
  ['a PATCH of node status (a subresource)', line('PATCH', '/api/v1/nodes/ip-10-0-1-7/status?timeout=10s'), true],
  ['a POST of events', line('POST', '/api/v1/namespaces/shop/events', '', '201'), true],
  ['a PUT, lower-case verb', line('put', '/api/v1/namespaces/shop/configmaps/x'), true],
  ['APPLY is a patch', line('APPLY', '/apis/apps/v1/namespaces/shop/deployments/web?fieldManager=kubectl'), true],
  ['DELETE of a collection', line('DELETE', '/api/v1/namespaces/shop/pods'), true],
  ['DELETECOLLECTION', line('DELETECOLLECTION', '/api/v1/namespaces/shop/pods'), true],
  ['CONNECT (exec)', line('CONNECT', '/api/v1/namespaces/shop/pods/web-1/exec?command=sh'), true],
  ['the namespace object', line('GET', '/api/v1/namespaces/shop'), true],
  ['a namespace finalize', line('PUT', '/api/v1/namespaces/shop/finalize'), true],
  ['the namespaces list', line('LIST', '/api/v1/namespaces'), true],
  ['discovery', line('GET', '/apis/apps/v1'), true],
  ['a path outside the API', line('GET', '/readyz'), true],
  ['a trailing slash', line('GET', '/api/v1/pods/'), true],
  ['a 429', line('LIST', '/api/v1/pods', '', '429'), true],
  ['a TokenRequest', line('POST', '/api/v1/namespaces/shop/serviceaccounts/default/token'), true],
  ['a latency in µs', line('GET', '/api/v1/pods/x').replace('latency="3.250681ms"', 'latency="812.5µs"'), true],
  ['a latency in minutes and seconds', line('WATCH', '/api/v1/pods?watch=true').replace('latency="3.250681ms"', 'latency="7m32.000123s"'), true],
  ['a latency of 0', line('GET', '/api/v1/pods/x').replace('latency="3.250681ms"', 'latency="0"'), true],
  ['a latency JavaScript cannot read (null)', line('GET', '/api/v1/pods/x').replace('latency="3.250681ms"', 'latency="fast"'), true],
  ['an APF queue wait', line('LIST', '/api/v1/pods', ' apf_init_latency="1.5ms"'), true],
  ['no audit-ID (1.19-1.21)', line('LIST', '/api/v1/pods').replace(' audit-ID="9e3779b1-0000-4000-8000-000000000001"', ''), true],
  ['an IPv6 source', line('LIST', '/api/v1/pods').replace('srcIP="10.0.1.7:30001"', 'srcIP="[fd00::7]:30001"'), true],
  ['no flow schema', line('LIST', '/api/v1/pods').replace(' apf_fs="system-nodes"', ''), true],
  ['an empty flow schema', line('LIST', '/api/v1/pods').replace('apf_fs="system-nodes"', 'apf_fs=""'), true],
  ['contentType (1.37) and apf_fd (1.23)', line('LIST', '/api/v1/pods', ' apf_fd="x" contentType="application/vnd.kubernetes.protobuf"'), true],
  ['keys out of the order httplog writes them', line('LIST', '/api/v1/pods').replace(/verb="LIST" (URI="[^"]*") /, '$1 verb="LIST" '), true],
  ['an unknown key before the usual ones', line('LIST', '/api/v1/pods').replace('"HTTP" verb=', '"HTTP" x=1 verb='), true],
  ['a key that begins as the one expected', line('LIST', '/api/v1/pods').replace('latency=', 'latencyX="1s" latency='), true],
  ['an escaped value nothing reads', line('LIST', '/api/v1/pods', ' addedInfo="a \\"quoted\\" \\x41 word"'), true],
  ['a statusStack nothing reads', line('GET', '/api/v1/pods/x', ' statusStack="\\ngoroutine 1 [running]:\\nmain.main()\\n"', '500'), true],
  // declined: the JavaScript path reads these
  ['an escape in the user agent', line('LIST', '/api/v1/pods').replace('userAgent="kubelet', 'userAgent="kube\\"let'), false],
  ['a user agent past ASCII', line('LIST', '/api/v1/pods').replace('userAgent="kubelet', 'userAgent="kübelet'), false],
  ['a %-escaped path', line('GET', '/api/v1/namespaces/shop/configmaps/a%20b'), false],
  ['a legacy /watch/ path', line('GET', '/api/v1/watch/pods'), false],
  ['a proxy path', line('GET', '/api/v1/namespaces/shop/services/web/proxy/x'), false],
  ['hijacked', line('GET', '/api/v1/namespaces/shop/pods/web-1/exec', ' hijacked=true'), false],
  ['UserAgent (1.18 key)', line('GET', '/api/v1/pods', ' UserAgent="x"'), false],
  ['a key twice', line('GET', '/api/v1/pods', ' resp=500'), false],
  ['a value of several lines', line('GET', '/api/v1/pods') + ' addedInfo=<', false],
  ['another caller', line('LIST', '/api/v1/pods').replace('httplog.go:132', 'trace.go:236'), false],
  ['a warning', 'W' + line('LIST', '/api/v1/pods').slice(1), false],
  ['an unknown verb', line('OPTIONS', '/api/v1/pods'), false],
  ['a 5-digit status', line('GET', '/api/v1/pods', '', '20000'), false],
];

describe.skipIf(engine === null)('the engine reads httplog lines as the JavaScript path does', () => {
  it.each(LINES)('%s', (_what, text, taken) => {
    const js = jsRecords(text);
    const e = engineRecord(text);
    if (!taken) {
      expect(e).toBeNull();
      return;
    }
    expect(e, 'taken by the engine').not.toBeNull();
    expect(js).toHaveLength(1);
    expect(fields(e!)).toEqual(fields(js[0]!));
  });

  it('dates a line in the year before when it would fall more than a day after now, as klogTimeMs does', () => {
    const text = line('GET', '/api/v1/pods/x').replace('I1130', 'I1231');
    const e = engineRecord(text)!;
    expect(new Date(e.stageMs!).toISOString()).toBe('2025-12-31T10:00:00.002Z');
    expect(fields(e)).toEqual(fields(jsRecords(text)[0]!));
  });
});

/** A log of httplog lines at the edges above, with trace blocks before some of them (joined by audit-ID, and
 * without one by path and time), interleaved with other klog lines; deterministic per seed. */
function httplogEdges(seed: number): string {
  const rand = mulberry32(seed);
  const pick = <T>(a: T[]): T => a[Math.floor(rand() * a.length)]!;
  const out: string[] = [];
  let t = Date.UTC(2026, 10, 30, 10, 0, 0);
  for (let n = 1; n <= 1500; n++) {
    t += Math.floor(rand() * 400);
    const d = new Date(t);
    const p2 = (x: number): string => String(x).padStart(2, '0');
    const head = `I${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${String(d.getUTCMilliseconds()).padStart(3, '0')}${String(n % 1000).padStart(3, '0')}       1 `;
    const [, text] = pick(LINES);
    const id = rand() < 0.1 ? '' : `${n.toString(16).padStart(8, '0')}-0000-4000-8000-${(n % 50).toString(16).padStart(12, '0')}`;
    const src = `10.0.${n % 7}.${n % 13}`;
    // (the line's own header after its time: its caller, kept; its severity, kept)
    let l = text.slice(30).replace('9e3779b1-0000-4000-8000-000000000001', id).replace('10.0.1.7', src);
    if (rand() < 0.3) l = l.replace('kubelet/v1.29.4', pick(['vector/0.34.1', 'app/1.0', 'kube-controller-manager/v1.29.4']));
    if (rand() < 0.08) {
      // a slow list's trace, written just before its httplog line
      const tid = 1000 + n;
      const ts = `${p2(d.getUTCDate())}-Nov-2026 ${d.toISOString().slice(11, 23)}`;
      out.push(`${head}trace.go:236] Trace[${tid}]: "List" accept:application/json,audit-id:${id},client:${src},protocol:HTTP/2.0,resource:pods,scope:cluster,url:/api/v1/pods,user-agent:kubelet/v1.29.4,verb:LIST (${ts}) (total time: 640ms):`);
      out.push(`Trace[${tid}]: ---"Writing http response done" count:30 630ms (10:00:00.000)`);
      out.push(`Trace[${tid}]: [640ms] [640ms] END`);
    }
    if (rand() < 0.03) out.push(`${head}cacher.go:1234] cacher (pods): 1 objects queued in incoming channel.`);
    out.push(text[0] + head.slice(1) + l);
  }
  return out.join('\n') + '\n';
}

describe.skipIf(engine === null)('logs of httplog lines: the engine and the JavaScript path give the same report', () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-scan-httplog-'));
  const files = [1, 2, 3].map((s) => {
    const f = join(dir, `edges-${s}.log`);
    writeFileSync(f, httplogEdges(s));
    return f;
  });
  it.each(files)('%s', async (f) => {
    const args = ['-o', 'json', '--top', '100000', '--syslog-year', '2026'];
    const js = await spawnCli([...args, '-j', '1', '--engine', 'js', f]);
    expect(js.code, js.stderr).toBe(0);
    const report = JSON.parse(js.stdout) as { totals: { requests: number } };
    expect(report.totals.requests).toBeGreaterThan(1000);
    for (const [threads, small] of [['1', false], ['3', false], ['1', true]] as const) {
      const env: Record<string, string> = { AUDIT_SCAN_MIN_SPLIT_BYTES: '4096', ...(small ? { AUDIT_SCAN_SLOT_TABLES: '16' } : {}) };
      const w = await spawnCli([...args, '-j', threads, '--engine', 'wasm', f], null, { env });
      expect(w.stdout, `-j ${threads}${small ? ' small tables' : ''}`).toBe(js.stdout);
    }
  });
});
