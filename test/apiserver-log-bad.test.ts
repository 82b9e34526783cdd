// Bad input in the apiserver's own log (issue 45): every request line counted once, every trace block one request,
// what was cut counted and named, nothing the apiserver wrote reported as skipped, never a crash.
import { describe, expect, it } from 'vitest';
import { scanJson } from './support.js';

const H = (t: string, caller: string) => `I1130 12:00:${t}       1 ${caller}] `;
const http = (t: string, id: string, uri = '/api/v1/pods?limit=500', extra = 'resp=200') =>
  `${H(t, 'httplog.go:132')}"HTTP" verb="LIST" URI="${uri}" latency="700ms" userAgent="lister/1.0" audit-ID="${id}" srcIP="10.0.0.7:4711" apf_pl="workload-low" apf_fs="service-accounts" ${extra}`;
const head = (t: string, tid: string, id: string) =>
  `${H(t, 'trace.go:236')}Trace[${tid}]: "List" accept:application/json,audit-id:${id},client:10.0.0.7,protocol:HTTP/2.0,resource:pods,scope:cluster,url:/api/v1/pods,user-agent:lister/1.0,verb:LIST (30-Nov-2026 12:00:00.000) (total time: 700ms):`;
const step = (tid: string) => `Trace[${tid}]: ---"Writing http response done" count:42 100ms (12:00:00.700)`;
const end = (tid: string) => `Trace[${tid}]: [700ms] [700ms] END`;
const scan = (lines: string[]) => scanJson(['--syslog-year', '2026'], lines.join('\n') + '\n');

describe('trace blocks cut, orphaned, interleaved', () => {
  it('a block cut by rotation at the start: its lines without their first are counted and named, not skipped', async () => {
    const { r } = await scan([step('7'), end('7'), http('00.700000', 'a1')]);
    expect(r.totals.requests).toBe(1);
    expect(r.inputs[0]!.skippedLines).toBe(0);
    expect(r.inputs[0]!.otherKinds['apiserver trace line without its first line (cut before it)']).toBe(2);
    expect(r.apiserverLog!.inputs[0]!.traceLinesWithoutHeader).toBe(2);
  });
  it('a block cut at the end (no END line): one request, the block counted as cut', async () => {
    const { r } = await scan([http('00.100000', 'a0', '/api/v1/nodes'), head('00.700000', '8', 'a1'), step('8')]);
    expect(r.totals.requests).toBe(2);
    expect(r.apiserverLog!.inputs[0]).toMatchObject({ traceBlocks: 1, traceBlocksCut: 1, requests: { httplog: 1, traceOnly: 1 } });
    expect(r.listGroups.find((g) => g.resource === 'pods')!.objectsReturnedPerRequest).toBe(42);
  });
  it('two blocks interleaved: each its own request, each with its own count', async () => {
    const { r } = await scan([head('00.700000', '1', 'x1'), head('00.700001', '2', 'x2'), `Trace[2]: ---"Writing http response done" count:5 1ms (12:00:00.700)`, step('1'), end('1'), end('2')]);
    expect(r.totals.requests).toBe(2);
    const g = r.listGroups[0]!;
    expect(g.requests).toBe(2);
    expect(g.objectsReturnedPerRequest).toBe(23.5);
    expect(r.apiserverLog!.inputs[0]!.traceBlocksCut).toBe(0);
  });
  it("a trace and its httplog line are one request, the trace's count on it", async () => {
    const { r } = await scan([head('00.700000', '1', 'j1'), step('1'), end('1'), http('00.700100', 'j1')]);
    expect(r.totals.requests).toBe(1);
    expect(r.apiserverLog!.inputs[0]!.requests).toEqual({ httplog: 1, traceOnly: 0, timeoutOnly: 0, joined: 1 });
    expect(r.listGroups[0]!).toMatchObject({ objectsReturnedPerRequest: 42, apiserverLog: { httplog: 1, traced: 1 } });
  });
  it('without audit-IDs (before 1.25), a trace joins the httplog line of the same path and client within a second', async () => {
    const old = (l: string) => l.replace(/audit-id:[^,]*,/, '').replace(/ audit-ID="[^"]*"/, '');
    const { r } = await scan([old(head('00.700000', '1', '')), step('1'), end('1'), old(http('00.700100', ''))]);
    expect(r.totals.requests).toBe(1);
    expect(r.apiserverLog!.inputs[0]!.requests.joined).toBe(1);
  });
});

describe('multi-line values, long lines, wrappers', () => {
  it('a 5 MB statusStack (klog key=< … >) is the one request it belongs to, its lines passed over', async () => {
    const stack = Array.from({ length: 70_000 }, (_, i) => `\tk8s.io/apiserver/pkg/server/filters.frame${i}(0xc000123456, 0x${i.toString(16)})`);
    const lines = [http('00.100000', 's1', '/api/v1/pods', 'resp=500 statusStack=<'), '\t', ...stack, ' > addedInfo=<', '\t', '\tlogging error output: "boom\\n"', ' >', http('00.200000', 's2')];
    expect(lines.join('\n').length).toBeGreaterThan(4_000_000);
    const { r } = await scan(lines);
    expect(r.totals.requests).toBe(2);
    expect(r.inputs[0]!.skippedLines).toBe(0);
    expect(r.inputs[0]!.otherKinds['apiserver multi-line value']).toBe(stack.length + 5);
    expect(r.listGroups[0]!.codes).toEqual({ '2xx': 1, '5xx': 1 });
  });
  it.each([
    ['kubectl logs --prefix', (l: string) => `[pod/kube-apiserver-m1/kube-apiserver] ${l}`],
    ['minikube logs', (l: string) => `* ${l}`],
    ['a leading space', (l: string) => ` ${l}`],
    ['kubectl logs --timestamps', (l: string) => `2026-11-30T12:00:00.700000000Z ${l}`],
    ['journald', (l: string) => `Nov 30 12:00:00 m1 kube-apiserver[812]: ${l}`],
  ])('%s', async (_name, wrap) => {
    const { r } = await scan([head('00.700000', '1', 'w1'), step('1'), end('1'), http('00.700100', 'w1'), http('00.800000', 'w2')].map(wrap));
    expect(r.totals.requests).toBe(2);
    expect(r.inputs[0]!.skippedLines).toBe(0);
    expect(r.apiserverLog!.inputs[0]!.requests.joined).toBe(1);
  });
  it('a message whose klog header a paster cut is still a request (no time)', async () => {
    const { r } = await scan(['"HTTP" verb="LIST" URI="/api/v1/pods" latency="1ms" userAgent="x/1" audit-ID="p1" srcIP="1.2.3.4:5" resp=200']);
    expect(r.totals.requests).toBe(1);
    expect(r.inputs[0]!.skippedLines).toBe(0);
  });
});
