// Secrets never reach any output, and strings a client controls cannot attack the reader (issue 4).
import { describe, expect, it } from 'vitest';
import { runCli } from './support.js';

const FORMATS = ['table', 'json', 'markdown', 'html'];

// Where each format prints the strings that held a credential, redacted: the proof that the secret went through
// the redactor and was printed, not cut away by a narrow column or dropped. Wide tables, so nothing is cut.
const REDACTED: Record<string, string[]> = {
  table: ['oidc:<redacted-jwt>'],
  json: ['"curl/8.0 Authorization: Bearer <redacted>"', '"oidc:<redacted-jwt>"', '"tool/1 <redacted-jwt>"'],
  markdown: ['curl/8.0 Authorization: Bearer &lt;redacted&gt;', 'oidc:&lt;redacted-jwt&gt;', 'tool/1 &lt;redacted-jwt&gt;'],
  html: ['curl/8.0 Authorization: Bearer &lt;redacted&gt;', 'oidc:&lt;redacted-jwt&gt;', 'tool/1 &lt;redacted-jwt&gt;'],
};

describe('canary secrets', () => {
  it.each(FORMATS)('no canary in --output %s (nor on stderr), and the strings that held one are printed redacted', async (fmt) => {
    const r = await runCli(['-o', fmt, '--verbose', '--width', '1000', 'fixtures/audit/canary-secrets.jsonl']);
    expect(r.code).toBe(0);
    expect(/CANARY/.test(r.stdout + r.stderr)).toBe(false);
    expect(/eyJhbGci/.test(r.stdout + r.stderr)).toBe(false);
    for (const want of REDACTED[fmt]!) expect(r.stdout).toContain(want);
  });

  it('counts the events it scrubbed', async () => {
    const r = await runCli(['-o', 'json', 'fixtures/audit/canary-secrets.jsonl']);
    expect(JSON.parse(r.stdout).totals).toMatchObject({ requests: 6, tokenRequests: 1 });
  });
});

describe('hostile strings', () => {
  const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

  it('table output has no control characters: ESC, BEL, backspace, CR, bidi', async () => {
    const r = await runCli(['fixtures/audit/hostile-strings.jsonl', '--width', '200']);
    expect(CONTROL.test(r.stdout)).toBe(false);
    expect(r.stdout).toContain('evil\\x1b]8;;https://phish.example/\\x07click');
  });

  it('markdown escapes table metacharacters and HTML', async () => {
    const r = await runCli(['-o', 'markdown', 'fixtures/audit/hostile-strings.jsonl']);
    expect(CONTROL.test(r.stdout)).toBe(false);
    expect(r.stdout).not.toContain('<script>');
    expect(r.stdout).not.toContain('<img');
    expect(r.stdout).toContain('pipe\\|breaker \\| &lt;script&gt;');
    // every table row keeps its column count
    const rows = r.stdout.split('\n').filter((l) => l.startsWith('| ') && l.includes('pods'));
    for (const row of rows) expect(row.split(/(?<!\\)\|/).length).toBe(rows[0]!.split(/(?<!\\)\|/).length);
  });

  it('html escapes everything', async () => {
    const r = await runCli(['-o', 'html', 'fixtures/audit/hostile-strings.jsonl']);
    expect(CONTROL.test(r.stdout)).toBe(false);
    expect(/<script|<img/.test(r.stdout)).toBe(false);
    expect(r.stdout).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(r.stdout).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('json keeps the text but escapes control characters', async () => {
    const r = await runCli(['-o', 'json', 'fixtures/audit/hostile-strings.jsonl']);
    expect(CONTROL.test(r.stdout)).toBe(false);
    expect(JSON.parse(r.stdout).listGroups.some((g: { userAgent: string }) => g.userAgent.includes('\u001b]8;;'))).toBe(true);
  });

  it('--verbose on stderr is safe too', async () => {
    const r = await runCli(['--verbose', '-'], 'junk \u001b[2J\u0007 line\n');
    expect(CONTROL.test(r.stderr)).toBe(false);
    expect(r.stderr).toContain('\\x1b[2J');
  });
});

describe('--redact', () => {
  it('replaces usernames and namespaces with stable pseudonyms', async () => {
    const a = await runCli(['-o', 'json', '--redact-key', 'k', 'fixtures/demo']);
    const b = await runCli(['-o', 'json', '--redact-key', 'k', 'fixtures/demo']);
    expect(a.stdout).toBe(b.stdout);
    expect(/vector:vector|alice@example\.com|"shop"|ops:backup-tool/.test(a.stdout)).toBe(false);
    const g = JSON.parse(a.stdout).listGroups[0];
    expect(g.username).toMatch(/^system:serviceaccount:ns-[0-9a-f]{8}:sa-[0-9a-f]{8}$/);
    const c = await runCli(['-o', 'json', '--redact-key', 'other', 'fixtures/demo']);
    expect(JSON.parse(c.stdout).listGroups[0].username).not.toBe(g.username);
  });

  it('keeps built-in identities, so a report still reads', async () => {
    const r = await runCli(['-o', 'json', '--redact', 'fixtures/demo']);
    const users = JSON.parse(r.stdout).listGroups.map((g: { username: string }) => g.username);
    expect(users).toContain('system:node:<node>');
    expect(users).toContain('system:kube-controller-manager');
  });
});
