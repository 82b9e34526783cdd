import { describe, expect, it } from 'vitest';
import { hostOf, klogJsonOf, klogTimeMs, kubeVerbOf, noteOf, parseKlogHeader, parseKlogMessage, parseCutTraceHeader, parseTraceFields, parseTraceHeader, parseTraceStep, requestOfHttplog, requestOfLegacyHttplog, traceLineOf, traceVerbOf } from '../../src/decode/apiserver-log.js';

describe('parseKlogHeader', () => {
  it.each<[string, Record<string, unknown> | null]>([
    ['I1205 10:00:02.123456       1 httplog.go:132] "HTTP" verb="LIST"', { severity: 'I', month: 12, day: 5, dayMs: 36_002_123, caller: 'httplog.go:132', msg: '"HTTP" verb="LIST"' }],
    ['E0101 00:00:00.000999 12345 wrap.go:54] x', { severity: 'E', month: 1, day: 1, dayMs: 0, caller: 'wrap.go:54', msg: 'x' }],
    ['W0229 23:59:59.999999       7 cacher.go:1131] Forcing watcher close', { severity: 'W', month: 2, day: 29, dayMs: 86_399_999, caller: 'cacher.go:1131', msg: 'Forcing watcher close' }],
    ['I1305 10:00:02.123456       1 x.go:1] month 13', null],
    ['I1205 25:00:02.123456       1 x.go:1] hour 25', null],
    ['I1205 10:00:02.1234       1 x.go:1] short fraction', null],
    ['{"ts":1}', null],
  ])('%j', (line, want) => {
    const h = parseKlogHeader(line);
    if (want === null) expect(h).toBeNull();
    else expect(h).toEqual(want);
  });

  it('dates a klog time in the year given, else the latest year not after now', () => {
    const h = { month: 12, day: 31, dayMs: 3_600_000 };
    expect(klogTimeMs(h, Date.UTC(2027, 0, 1), null)).toBe(Date.UTC(2026, 11, 31, 1));
    expect(klogTimeMs(h, Date.UTC(2026, 11, 31), null)).toBe(Date.UTC(2026, 11, 31, 1));
    expect(klogTimeMs(h, Date.UTC(2026, 5, 1), null)).toBe(Date.UTC(2025, 11, 31, 1));
    expect(klogTimeMs(h, Date.UTC(2026, 5, 1), 2020)).toBe(Date.UTC(2020, 11, 31, 1));
  });
});

describe('parseKlogMessage', () => {
  it('reads the message and the pairs, quoted and bare, with Go escapes', () => {
    const m = parseKlogMessage('"HTTP" verb="LIST" URI="/api/v1/pods?x=\\"y\\"" latency="1.5ms" apf_iseats=10 resp=200 userAgent="a\\tb\\u00e9"');
    expect(m.text).toBe('HTTP');
    expect(Object.fromEntries(m.kv)).toEqual({ verb: 'LIST', URI: '/api/v1/pods?x="y"', latency: '1.5ms', apf_iseats: '10', resp: '200', userAgent: 'a\tbé' });
    expect(m.openKey).toBeNull();
  });
  it('notes a value that goes on over the next lines (key=<)', () => {
    const m = parseKlogMessage('"HTTP" verb="GET" URI="/x" resp=500 statusStack=<');
    expect(m.kv.get('resp')).toBe('500');
    expect(m.openKey).toBe('statusStack');
  });
  it('gives an unstructured message back whole', () => {
    expect(parseKlogMessage('Serving securely on [::]:6443')).toEqual({ text: 'Serving securely on [::]:6443', kv: new Map(), openKey: null });
  });
  it('keeps what a cut quoted value holds', () => {
    expect(parseKlogMessage('"HTTP" verb="LIST" URI="/api/v1/po').kv.get('URI')).toBe('/api/v1/po');
  });
});

describe('kubeVerbOf', () => {
  it.each([
    ['LIST', '/api/v1/pods?limit=500', 'list'],
    ['GET', '/api/v1/pods', 'list'],
    ['GET', '/api/v1/namespaces/ns/pods', 'list'],
    ['GET', '/api/v1/namespaces/ns/pods/p', 'get'],
    ['GET', '/api/v1/namespaces/ns/pods/p/log', 'get'],
    ['GET', '/api/v1/namespaces', 'list'],
    ['GET', '/api/v1/namespaces/ns', 'get'],
    ['GET', '/apis/apps/v1/deployments', 'list'],
    ['GET', '/apis/apps/v1/namespaces/ns/deployments/d', 'get'],
    ['GET', '/api/v1/pods?watch=true&resourceVersion=1', 'watch'],
    ['LIST', '/api/v1/watch/pods', 'watch'],
    ['WATCH', '/api/v1/pods?watch=1', 'watch'],
    ['GET', '/healthz', 'get'],
    ['POST', '/api/v1/namespaces/ns/serviceaccounts/sa/token', 'create'],
    ['PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n', 'update'],
    ['APPLY', '/apis/apps/v1/namespaces/ns/deployments/d', 'patch'],
    ['DELETE', '/api/v1/namespaces/ns/pods', 'deletecollection'],
    ['DELETE', '/api/v1/namespaces/ns/pods/p', 'delete'],
    // the path read part by part: empty parts, one `watch` part at most, a group's three parts
    ['DELETE', '//api//v1///namespaces/ns/pods/', 'deletecollection'],
    ['DELETE', '/api/v1/watch/watch', 'deletecollection'],
    ['DELETE', '/api/v1/watch/watch/x', 'delete'],
    ['DELETE', '/apis/apps/v1/watch/namespaces/ns/deployments', 'deletecollection'],
    ['DELETE', '/apis/apps/v1', 'delete'],
    ['DELETE', '/api/v1/namespacesx/ns', 'delete'],
    ['DELETE', '/apix/v1/pods', 'delete'],
    ['GET', '/apis/apps', 'get'],
  ])('%s %s → %s', (verb, uri, want) => {
    expect(kubeVerbOf(verb, uri)).toBe(want);
  });
});

describe('httplog', () => {
  it('reads an "HTTP" line of 1.22 on, with APF', () => {
    const m = parseKlogMessage('"HTTP" verb="LIST" URI="/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1" latency="337.3ms" userAgent="vector/0.34.1" audit-ID="a-1" srcIP="10.0.0.5:43210" apf_pl="workload-low" apf_fs="service-accounts" apf_iseats=1 apf_fseats=0 apf_additionalLatency="0s" apf_execution_time="336ms" resp=200');
    expect(requestOfHttplog(m.kv)).toEqual({ verb: 'list', uri: '/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1', userAgent: 'vector/0.34.1', auditID: 'a-1', srcIP: '10.0.0.5', code: 200, latencyMs: 337.3, apfPriorityLevel: 'workload-low', apfFlowSchema: 'service-accounts', apfSeats: 1, apfQueueWaitMs: null, hijacked: false });
  });
  it('reads a 1.19-1.21 line: the HTTP method as verb, no audit-ID', () => {
    const m = parseKlogMessage('"HTTP" verb="GET" URI="/api/v1/namespaces/kube-system/pods/x" latency="2.1ms" userAgent="kubectl/v1.20.0" srcIP="[fd00::5]:6000" resp=404');
    expect(requestOfHttplog(m.kv)).toMatchObject({ verb: 'get', auditID: '', srcIP: 'fd00::5', code: 404, latencyMs: 2.1 });
  });
  it('marks a hijacked request', () => {
    expect(requestOfHttplog(parseKlogMessage('"HTTP" verb="CONNECT" URI="/api/v1/namespaces/ns/pods/p/exec?command=sh" latency="3s" userAgent="kubectl" audit-ID="x" srcIP="1.2.3.4:1" hijacked=true').kv)).toMatchObject({ verb: 'connect', hijacked: true, code: null });
  });
  it('reads the unstructured line before 1.19', () => {
    expect(requestOfLegacyHttplog('GET /api/v1/namespaces/default/pods?limit=500: (1.234ms) 200 [kubectl/v1.18.0 (linux/amd64) kubernetes/abc 10.0.0.1:54321]')).toEqual({ verb: 'list', uri: '/api/v1/namespaces/default/pods?limit=500', userAgent: 'kubectl/v1.18.0 (linux/amd64) kubernetes/abc', auditID: '', srcIP: '10.0.0.1', code: 200, latencyMs: 1.234, apfPriorityLevel: '', apfFlowSchema: '', apfSeats: null, apfQueueWaitMs: null, hijacked: false });
    expect(requestOfLegacyHttplog('GET /api/v1/pods?watch=true: (5m0s) hijacked [kube-proxy/v1.16.2 10.0.0.2:1]')).toMatchObject({ verb: 'watch', code: null, hijacked: true });
    expect(requestOfLegacyHttplog('quota admission added evaluator for: leases')).toBeNull();
    // a 5xx's record: its stack follows on the next lines, the client after it (kubernetes#57708)
    expect(requestOfLegacyHttplog('GET /debug/pprof/profile?seconds=60: (1m0.000299116s) 504')).toMatchObject({ verb: 'get', code: 504, userAgent: '', srcIP: '', latencyMs: 60000.299116 });
    expect(requestOfLegacyHttplog('GET /api/v1/pods?limit=500&resourceVersion=15')).toBeNull();
  });
  it.each([
    ['10.0.0.5:43210', '10.0.0.5'],
    ['[fd00::1]:443', 'fd00::1'],
    ['fd00::1', 'fd00::1'],
    ['10.0.0.5', '10.0.0.5'],
  ])('hostOf(%s) = %s', (a, b) => expect(hostOf(a)).toBe(b));
});

describe('traces', () => {
  it('reads a 1.26+ header: fields, start date with its year, total time', () => {
    const h = parseTraceHeader('1234', '"List" accept:application/json, */*,audit-id:a-1,client:10.0.0.5,api-group:,api-version:v1,name:,subresource:,namespace:,protocol:HTTP/2.0,resource:pods,scope:cluster,url:/api/v1/pods,user-agent:vector/0.34.1 (linux/amd64),verb:LIST (05-Dec-2026 10:00:01.786) (total time: 337ms):');
    expect(h).not.toBeNull();
    expect(h!.name).toBe('List');
    expect(h!.startMs).toBe(Date.UTC(2026, 11, 5, 10, 0, 1, 786));
    expect(h!.totalMs).toBe(337);
    expect(h!.fields.get('accept')).toBe('application/json, */*');
    expect(h!.fields.get('user-agent')).toBe('vector/0.34.1 (linux/amd64)');
    expect(h!.fields.get('url')).toBe('/api/v1/pods');
    expect(h!.fields.get('audit-id')).toBe('a-1');
    expect(traceVerbOf(h!)).toBe('list');
  });
  it('reads the 1.18 header, the URL in the name', () => {
    const h = parseTraceHeader('9', '"List /api/v1/pods" (started: 2020-06-05 10:00:00.123456789 +0200 CEST m=+1.2) (total time: 1.2s):');
    expect(h).toMatchObject({ name: 'List', startMs: Date.UTC(2020, 5, 5, 8, 0, 0, 123), totalMs: 1200 });
    expect(h!.fields.get('url')).toBe('/api/v1/pods');
  });
  it('a header a pager cut (journalctl: "…kubernet>"): its name and the fields before the cut one', () => {
    const h = parseCutTraceHeader('1924033328', '"Get" url:/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/k3s-ccm,user-agent:k3s/v1.25.13+k3s1 (linux/amd64) kubernet>');
    expect(h).toMatchObject({ name: 'Get', startMs: null, totalMs: null });
    expect(h!.fields.get('url')).toBe('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/k3s-ccm');
    expect(h!.fields.has('user-agent')).toBe(false);
    expect(parseCutTraceHeader('1', '---"About to Encode" 521ms')).toBeNull();
  });
  it('marks the form before 1.19, whose END is written only past a threshold', () => {
    expect(parseTraceHeader('9', '"List /api/v1/pods" (started: 2020-06-05 10:00:00.123456789 +0200 CEST m=+1.2) (total time: 1.2s):')!.legacy).toBe(true);
    expect(parseTraceHeader('9', '"List" url:/api/v1/pods (05-Dec-2026 10:00:01.786) (total time: 337ms):')!.legacy).toBe(false);
  });
  it('is not a header without a total time or a quoted name', () => {
    expect(parseTraceHeader('1', '---"Writing http response done" count:110 37ms (10:00:02.123)')).toBeNull();
    expect(parseTraceHeader('1', '"List" url:/x')).toBeNull();
  });
  it.each<[string, Record<string, unknown>]>([
    ['---"Writing http response done" count:110 37ms (10:00:02.123)', { returned: 110 }],
    ['---"Listing from storage done" 300ms (10:00:01.197)', {}],
    ['[337.123456ms] [337.123456ms] END', { end: true }],
    ['  ---"Listed items from cache" count:7130 10ms (10:00:01.197)', { cacheListed: 7130 }],
    ['  ---"Filtered items" count:110 1ms (10:00:01.198)', { cacheFiltered: 110 }],
    ['["List(recursive=true) etcd3" audit-id:a-1,key:/pods,resourceVersion:,resourceVersionMatch:,limit:500,continue: 300ms (10:00:01.786)]', { etcd: { key: '/pods', resourceVersion: '', resourceVersionMatch: '', limit: 500, continue: false } }],
  ])('%j', (line, want) => {
    expect(parseTraceStep(line)).toEqual(want);
  });
  it('splits fields only where a key follows the comma', () => {
    expect(Object.fromEntries(parseTraceFields('a:1,accept:x, y,b-c:'))).toEqual({ a: '1', accept: 'x, y', 'b-c': '' });
  });
  it.each<[string, Record<string, string>]>([
    ['', {}],
    [',a:1', { a: '1' }],
    ['1a:1,b:2', { b: '2' }],
    ['a:1,,b:2,a:3', { a: '1,', b: '2' }],
    ['a:1,b', { a: '1,b' }],
    ['user-agent:x/y (linux, amd64),k_2:v', { 'user-agent': 'x/y (linux, amd64)', k_2: 'v' }],
    ['Key:v,-a:w', { Key: 'v,-a:w' }],
  ])('fields of %j', (s, want) => {
    expect(Object.fromEntries(parseTraceFields(s))).toEqual(want);
  });
  it.each<[string, { id: string; rest: string } | null]>([
    ['Trace[12]: "List" x', { id: '12', rest: '"List" x' }],
    ['Trace[12]:no space', { id: '12', rest: 'no space' }],
    ['Trace[12]:  two spaces', { id: '12', rest: ' two spaces' }],
    ['Trace[12]: line\nnext', { id: '12', rest: 'line\nnext' }],
    ['Trace[]: x', null],
    ['Trace[1a]: x', null],
    ['Trace[12] x', null],
    [' Trace[12]: x', null],
  ])('trace line %j', (s, want) => {
    expect(traceLineOf(s)).toEqual(want);
  });
});

describe('noteOf: the load and restart lines', () => {
  it.each<[string, Record<string, string>, Record<string, unknown>]>([
    ['Serving securely on [::]:6443', {}, { kind: 'start', what: 'serving securely' }],
    ['Version: v1.28.3', {}, { kind: 'start', what: 'version', version: 'v1.28.3' }],
    ['FLAG: --v="3"', {}, { kind: 'start', what: 'flag', flag: { name: 'v', value: '3' } }],
    // PrintFlags quotes the value as Go's %q does
    ['FLAG: --audit-log-path="/var/log/a \\"b\\"\\tc.log"', {}, { kind: 'start', what: 'flag', flag: { name: 'audit-log-path', value: '/var/log/a "b"\tc.log' } }],
    ['FLAG: --feature-gates=""', {}, { kind: 'start', what: 'flag', flag: { name: 'feature-gates', value: '' } }],
    ['Timeout or abort while handling', { method: 'GET', URI: '/api/v1/pods?limit=500', auditID: 'x-1' }, { kind: 'timeout', req: { verb: 'list', uri: '/api/v1/pods?limit=500', auditID: 'x-1', code: 504 } }],
    ['timeout or abort while handling: method=GET URI="/api/v1/events" audit-ID="y-2"', {}, { kind: 'timeout', req: { verb: 'list', uri: '/api/v1/events', auditID: 'y-2' } }],
    ['timeout or abort while handling: GET "/api/v1/namespaces/a/pods/b"', {}, { kind: 'timeout', req: { verb: 'get', uri: '/api/v1/namespaces/a/pods/b', auditID: '' } }],
    ['Terminating all watchers from cacher pods', {}, { kind: 'cacher', what: 'watchers terminated' }],
    ['cacher (pods): unexpected ListAndWatch error: failed to list *core.Pod: etcdserver: request timed out; reinitializing...', {}, { kind: 'cacher', what: 'ListAndWatch error', resource: 'pods' }],
    ['quota admission added evaluator for: leases', {}, { kind: 'other', what: 'klog' }],
    // 1.31+ writes it with a capital (logger="UnhandledError"); 1.22–1.30 without
    ['Post-timeout activity', { logger: 'UnhandledError' }, { kind: 'other', what: 'apiserver post-timeout activity' }],
    ['post-timeout activity - time-elapsed: 3.5ms, GET "/api/v1/pods" result: <nil>', {}, { kind: 'other', what: 'apiserver post-timeout activity' }],
  ])('%j', (text, kv, want) => {
    expect(noteOf(text, new Map(Object.entries(kv)), 'controller.go:615')).toMatchObject(want);
  });
});

describe('klogJsonOf', () => {
  it('reads a --logging-format=json record and not an etcd zap line', () => {
    expect(klogJsonOf({ ts: 1733392802.1234, caller: 'httplog/httplog.go:132', msg: 'HTTP', v: 3, verb: 'LIST', URI: '/api/v1/pods', resp: 200 })).toEqual({ tsMs: 1733392802123, caller: 'httplog/httplog.go:132', msg: 'HTTP', kv: new Map([['verb', 'LIST'], ['URI', '/api/v1/pods'], ['resp', '200']]) });
    expect(klogJsonOf({ level: 'warn', ts: '2024-04-22T17:18:03.213763+0800', caller: 'etcdserver/util.go:170', msg: 'apply request took too long' })).toBeNull();
  });
});
