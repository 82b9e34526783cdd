// Issue 47 #2: `audit-scan policy` prints the audit policy that keeps the evidence. The policy must load in a real
// kube-apiserver; none installs here (no Debian package, no npm or Debian package of the Go types), so the YAML is
// parsed by `yaml` and checked by validatePolicy below: a re-statement of kube-apiserver's own checks
// (k8s.io/apiserver pkg/apis/audit/validation/validation.go: ValidatePolicy; pkg/audit/policy/reader.go: a policy
// needs rules), with the audit.k8s.io/v1 fields only (its decoding is strict about unknown fields).
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { POLICY_RULES, PolicyTally, renderPolicyYaml, ruleFor } from '../src/analyze/audit-policy.js';
import { normalizeAuditEvent } from '../src/decode/audit-event.js';
import { ROOT, auditLine, spawnCli, valueOf } from './support.js';

const TMP = mkdtempSync(join(tmpdir(), 'audit-scan-policy-'));
const LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'];
const STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];
const POLICY_FIELDS = ['apiVersion', 'kind', 'metadata', 'rules', 'omitStages', 'omitManagedFields'];
const RULE_FIELDS = ['level', 'users', 'userGroups', 'verbs', 'resources', 'namespaces', 'nonResourceURLs', 'omitStages', 'omitManagedFields'];
const GROUP_FIELDS = ['group', 'resources', 'resourceNames'];
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** kube-apiserver's checks of an audit policy, as errors (none: it loads). */
function validatePolicy(p: any): string[] {
  const errs: string[] = [];
  if (p === null || typeof p !== 'object') return ['not an object'];
  if (p.apiVersion !== 'audit.k8s.io/v1' || p.kind !== 'Policy') errs.push('apiVersion/kind');
  for (const k of Object.keys(p)) if (!POLICY_FIELDS.includes(k)) errs.push(`unknown field ${k}`);
  const stages = (s: unknown, at: string) => {
    if (s === undefined) return;
    if (!Array.isArray(s)) return errs.push(`${at}: not a list`);
    s.forEach((x, i) => STAGES.includes(x) || errs.push(`${at}[${i}]: allowed stages are ${STAGES.join(',')}`));
  };
  stages(p.omitStages, 'omitStages');
  if (!Array.isArray(p.rules) || p.rules.length === 0) errs.push('loaded illegal policy with 0 rules');
  (p.rules ?? []).forEach((r: any, i: number) => {
    const at = `rules[${i}]`;
    for (const k of Object.keys(r)) if (!RULE_FIELDS.includes(k)) errs.push(`${at}: unknown field ${k}`);
    if (r.level === undefined || r.level === '') errs.push(`${at}.level: Required`);
    else if (!LEVELS.includes(r.level)) errs.push(`${at}.level: Unsupported value`);
    for (const k of ['users', 'userGroups', 'verbs', 'namespaces', 'nonResourceURLs']) if (r[k] !== undefined && (!Array.isArray(r[k]) || r[k].some((x: unknown) => typeof x !== 'string'))) errs.push(`${at}.${k}: not a list of strings`);
    (r.nonResourceURLs ?? []).forEach((u: string, j: number) => {
      if (u === '*') return;
      if (!u.startsWith('/')) errs.push(`${at}.nonResourceURLs[${j}]: non-resource URL rules must begin with a '/' character`);
      if (u !== '' && u.slice(0, -1).includes('*')) errs.push(`${at}.nonResourceURLs[${j}]: non-resource URL wildcards '*' must be the final character of the rule`);
    });
    (r.resources ?? []).forEach((g: any, j: number) => {
      for (const k of Object.keys(g)) if (!GROUP_FIELDS.includes(k)) errs.push(`${at}.resources[${j}]: unknown field ${k}`);
      if (typeof g.group === 'string' && g.group.length > 0 && !DNS_SUBDOMAIN.test(g.group)) errs.push(`${at}.resources[${j}].group: not a DNS subdomain`);
      if ((g.resourceNames ?? []).length > 0 && (g.resources ?? []).length === 0) errs.push(`${at}.resources[${j}].resourceNames: using resourceNames requires at least one resource`);
    });
    if ((r.nonResourceURLs ?? []).length > 0 && ((r.resources ?? []).length > 0 || (r.namespaces ?? []).length > 0)) errs.push(`${at}.nonResourceURLs: rules cannot apply to both regular resources and non-resource URLs`);
    stages(r.omitStages, `${at}.omitStages`);
  });
  return errs;
}

describe('the validator refuses what kube-apiserver refuses', () => {
  const ok = { apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules: [{ level: 'Metadata' }] };
  it.each([
    ['a good policy', ok, []],
    ['no rules', { ...ok, rules: [] }, ['loaded illegal policy with 0 rules']],
    ['no level', { ...ok, rules: [{ verbs: ['get'] }] }, ['rules[0].level: Required']],
    ['a level of its own', { ...ok, rules: [{ level: 'Everything' }] }, ['rules[0].level: Unsupported value']],
    ['resources and URLs in one rule', { ...ok, rules: [{ level: 'None', nonResourceURLs: ['/healthz'], resources: [{ group: '', resources: ['pods'] }] }] }, ['rules[0].nonResourceURLs: rules cannot apply to both regular resources and non-resource URLs']],
    ['a wildcard inside a URL', { ...ok, rules: [{ level: 'None', nonResourceURLs: ['/heal*z'] }] }, ["rules[0].nonResourceURLs[0]: non-resource URL wildcards '*' must be the final character of the rule"]],
    ['a stage of its own', { ...ok, omitStages: ['Done'] }, ['omitStages[0]: allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic']],
    ['a group with a version', { ...ok, rules: [{ level: 'None', resources: [{ group: 'rbac.authorization.k8s.io/v1', resources: ['roles'] }] }] }, ['rules[0].resources[0].group: not a DNS subdomain']],
    ['an unknown field', { ...ok, rules: [{ level: 'None', verb: ['get'] }] }, ['rules[0]: unknown field verb']],
  ])('%s', (_name, p, want) => {
    expect(validatePolicy(p)).toEqual(want);
  });
});

describe('audit-scan policy (issue 47 #2)', () => {
  it('prints a policy that loads: valid YAML, every check of kube-apiserver passed, the rules in order', async () => {
    const r = await spawnCli(['policy']);
    expect(r.code, r.stderr).toBe(0);
    const p = parse(r.stdout);
    expect(validatePolicy(p)).toEqual([]);
    expect(p.omitStages).toEqual(['RequestReceived']);
    expect(p.rules.map((x: any) => x.level)).toEqual(POLICY_RULES.map((x) => x.level));
    // never a response body: nothing at RequestResponse
    expect(p.rules.some((x: any) => x.level === 'RequestResponse')).toBe(false);
    expect(renderPolicyYaml([])).toBe(r.stdout.slice(r.stdout.indexOf('apiVersion:')).replace(/^/, ''));
  });

  const ev = (f: Record<string, unknown>) => valueOf(normalizeAuditEvent(JSON.parse(auditLine(f)), () => 'x'));
  it.each([
    ['a list of pods', { verb: 'list', requestURI: '/api/v1/pods?limit=500', objectRef: { resource: 'pods', apiVersion: 'v1' } }, 'Metadata'],
    ['a watch-list', { verb: 'watch', requestURI: '/api/v1/pods?watch=true&sendInitialEvents=true', objectRef: { resource: 'pods', apiVersion: 'v1' } }, 'Metadata'],
    ['a kubelet heartbeat', { verb: 'update', requestURI: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1', objectRef: { resource: 'leases', apiGroup: 'coordination.k8s.io', namespace: 'kube-node-lease', name: 'node-1' } }, 'None'],
    ['an apiserver identity lease', { verb: 'update', requestURI: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/apiserver-abc', objectRef: { resource: 'leases', apiGroup: 'coordination.k8s.io', namespace: 'kube-system', name: 'apiserver-abc' } }, 'Metadata'],
    ['a TokenRequest', { verb: 'create', requestURI: '/api/v1/namespaces/a/serviceaccounts/b/token', objectRef: { resource: 'serviceaccounts', subresource: 'token', namespace: 'a', name: 'b' } }, 'Request'],
    ['a secret get', { verb: 'get', requestURI: '/api/v1/namespaces/a/secrets/s', objectRef: { resource: 'secrets', namespace: 'a', name: 's' } }, 'Metadata'],
    ['a secret written', { verb: 'update', requestURI: '/api/v1/namespaces/a/secrets/s', objectRef: { resource: 'secrets', namespace: 'a', name: 's' } }, 'Metadata'],
    ['an event written', { verb: 'create', requestURI: '/api/v1/namespaces/a/events', objectRef: { resource: 'events', namespace: 'a' } }, 'None'],
    ['a list of events', { verb: 'list', requestURI: '/api/v1/namespaces/a/events', objectRef: { resource: 'events', namespace: 'a' } }, 'Metadata'],
    ['a health check', { verb: 'get', requestURI: '/readyz?verbose', objectRef: undefined }, 'None'],
    ['a deployment created', { verb: 'create', requestURI: '/apis/apps/v1/namespaces/a/deployments', objectRef: { resource: 'deployments', apiGroup: 'apps', namespace: 'a' } }, 'Metadata'],
  ])('%s → %s', (_name, f, level) => {
    expect(ruleFor(ev(f))?.level).toBe(level);
  });

  it('measures a log: what its events weigh, what the policy would write, what the log hides', () => {
    const t = new PolicyTally();
    const body = { kind: 'Secret', data: { token: 'c2VjcmV0' } };
    const lines = [
      // 1: a list, RequestReceived: omitted
      auditLine({ auditID: 'a', stage: 'RequestReceived', verb: 'list', requestURI: '/api/v1/pods', objectRef: { resource: 'pods' } }),
      // 2: the same list at its end: kept whole
      auditLine({ auditID: 'a', verb: 'list', requestURI: '/api/v1/pods', objectRef: { resource: 'pods' } }),
      // 3: a heartbeat: dropped
      auditLine({ auditID: 'b', verb: 'update', requestURI: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n', objectRef: { resource: 'leases', apiGroup: 'coordination.k8s.io', namespace: 'kube-node-lease', name: 'n' } }),
      // 4: a secret get at RequestResponse: kept at Metadata, its body left out
      auditLine({ auditID: 'c', level: 'RequestResponse', verb: 'get', requestURI: '/api/v1/namespaces/a/secrets/s', objectRef: { resource: 'secrets', namespace: 'a', name: 's' }, responseObject: body }),
    ];
    for (const l of lines) {
      const o = JSON.parse(l);
      t.add(Buffer.byteLength(l) + 1, o, valueOf(normalizeAuditEvent(o, () => 'x')));
    }
    const size = (i: number) => Buffer.byteLength(lines[i]!) + 1;
    // the body: its JSON, its key and the quotes, colon and comma around it
    const bodyBytes = JSON.stringify(body).length + '"responseObject":,'.length;
    expect(t.events).toBe(4);
    expect(t.bytes).toBe(size(0) + size(1) + size(2) + size(3));
    expect(t.keptEvents).toBe(2);
    expect(t.keptBytes).toBe(size(1) + size(3) - bodyBytes);
    expect(t.hides()).toEqual([
      'every watch (the log has none): the watches that end at an apiserver restart, and watch-lists (client-go ≥ 0.35 lists that way), are not seen',
      'the objects a list returned (no list at RequestResponse): they are estimated, not counted (pass --objects, or the etcd log)',
    ]);
    // the heartbeat is one of four lines of about the same size: about a quarter of the bytes, dropped
    const share = Math.round((size(2) / t.bytes) * 100);
    expect(share).toBeGreaterThanOrEqual(20);
    // (one RequestReceived event of four is 25%, under the 30% said)
    expect(t.wastes()).toEqual([`heartbeats, health checks and event writes: ${share}% of the bytes`]);
  });

  it.each([
    // [the stages of a list and a get, whether the log hides their responses]
    [['RequestReceived', 'RequestReceived'], true],
    [['RequestReceived', 'ResponseComplete'], false],
    [['ResponseComplete', 'ResponseComplete'], false],
  ])('a log of only the RequestReceived stage hides every response: %j → %s', (stages, hidden) => {
    const t = new PolicyTally();
    stages.forEach((stage, i) => {
      const o = JSON.parse(auditLine({ auditID: `s${i}`, stage, verb: i === 0 ? 'list' : 'get', requestURI: i === 0 ? '/api/v1/pods' : '/api/v1/namespaces/a/pods/p', objectRef: { resource: 'pods' } }));
      t.add(100, o, valueOf(normalizeAuditEvent(o, () => 'x')));
    });
    expect(t.hides().some((h) => h.startsWith('every response (the log has only the RequestReceived stage)'))).toBe(hidden);
  });

  it('the report says a log of only RequestReceived events hides every response, and points at this command', async () => {
    // 10 pod lists and 10 gets, each only its RequestReceived stage (no responseStatus); then the same with a second,
    // answered stage each: only the first says so
    const ev = (i: number, stage: string) => ({ auditID: `r${i}`, stage, verb: i % 2 === 0 ? 'list' : 'get', requestURI: i % 2 === 0 ? '/api/v1/pods' : '/api/v1/namespaces/a/pods/p', objectRef: { resource: 'pods', namespace: i % 2 === 0 ? undefined : 'a', name: i % 2 === 0 ? undefined : 'p', apiVersion: 'v1' }, requestReceivedTimestamp: `2026-11-30T12:00:${String(i).padStart(2, '0')}.000000Z`, stageTimestamp: `2026-11-30T12:00:${String(i).padStart(2, '0')}.000000Z` });
    const only = join(TMP, 'received-only.log');
    writeFileSync(only, Array.from({ length: 20 }, (_, i) => { const o = JSON.parse(auditLine(ev(i, 'RequestReceived'))); delete o.responseStatus; return JSON.stringify(o); }).join('\n') + '\n');
    const both = join(TMP, 'received-and-complete.log');
    writeFileSync(both, readFileSync(only, 'utf8') + Array.from({ length: 20 }, (_, i) => auditLine(ev(i, 'ResponseComplete'))).join('\n') + '\n');
    const says = "The logs' reads hold no response (only the RequestReceived stage)";
    const a = JSON.parse((await spawnCli(['-o', 'json', '--kube-version', '1.29', only])).stdout);
    expect(a.method.auditPolicy).toContain(says);
    expect(a.method.auditPolicy).toContain('audit-scan policy LOGS prints a policy that keeps the stages after it');
    const b = JSON.parse((await spawnCli(['-o', 'json', '--kube-version', '1.29', both])).stdout);
    expect(b.method.auditPolicy ?? '').not.toContain(says);
  }, 30_000);

  it('on a log: the figures in the YAML and on stderr, never a secret, exit 0; nothing to measure is exit 1', async () => {
    const r = await spawnCli(['policy', join(ROOT, 'fixtures/audit/canary-secrets.jsonl')]);
    expect(r.code, r.stderr).toBe(0);
    expect(validatePolicy(parse(r.stdout))).toEqual([]);
    expect(r.stdout).toMatch(/^# Measured on .*canary-secrets\.jsonl: \d+ events, .*; under this policy about \d+ events/m);
    expect(r.stderr).toContain('audit-scan: policy: Measured on');
    const canaries = readFileSync(join(ROOT, 'fixtures/audit/canary-secrets.jsonl'), 'utf8').match(/CANARY[A-Za-z0-9_-]*/g) ?? [];
    for (const c of new Set(canaries)) expect(r.stdout + r.stderr).not.toContain(c);
    const empty = join(TMP, 'empty.log');
    writeFileSync(empty, 'not an audit event\n');
    const e = await spawnCli(['policy', empty]);
    expect(e.code).toBe(1);
    expect(e.stderr).toContain('no audit events in the logs');
    expect(validatePolicy(parse(e.stdout))).toEqual([]);
  });
});
