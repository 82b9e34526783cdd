// Text safety, table-driven: every credential shape is redacted and nothing around it is; every control character
// a terminal or a bidi renderer acts on is shown as an escape in every output format.
import { describe, expect, it } from 'vitest';
import { escapeHtml, escapeMarkdown, redactJson, redactSecrets, safeText, truncate } from '../../src/render/text-safety.js';
import { auditLine, runCli } from '../support.js';

describe('redactSecrets', () => {
  it.each([
    ['a JWT', 'user oidc:eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln rest', 'user oidc:<redacted-jwt> rest'],
    ['a JWT with an empty signature', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', '<redacted-jwt>'],
    ['Bearer and one space', 'Authorization: Bearer abcdef123', 'Authorization: Bearer <redacted>'],
    ['Bearer and two spaces', 'Authorization: Bearer  abcdef123', 'Authorization: Bearer <redacted>'],
    ['bearer URL-encoded (%20)', 'h=bearer%20abcdef123', 'h=bearer <redacted>'],
    ['Basic with a +', 'Basic+dXNlcjpwYXNz', 'Basic <redacted>'],
    ['a short word after Bearer is not a credential', 'Bearer token', 'Bearer token'],
    ['token= in a query, up to the &', '/api/v1/pods?token=s3cr3t&limit=5', '/api/v1/pods?token=<redacted>&limit=5'],
    ['access_token=, up to a space', 'access_token=abc def', 'access_token=<redacted> def'],
    ['id_token=, up to a quote', 'id_token=abc"x', 'id_token=<redacted>"x'],
    ['password=', 'password=hunter2', 'password=<redacted>'],
    ['passwd=', 'passwd=hunter2', 'passwd=<redacted>'],
    ['secret=', 'secret=x1', 'secret=<redacted>'],
    ['apikey= and api_key=', 'apikey=a1&api_key=b2', 'apikey=<redacted>&api_key=<redacted>'],
    ['any case', 'PASSWORD=x', 'PASSWORD=<redacted>'],
    ['an OpenShift token (sha256~ and 20+ characters)', 'sha256~abcdefghijklmnopqrstu', 'sha256~<redacted>'],
    ['sha256~ with 19 characters is not one', 'sha256~abcdefghijklmnopqrs', 'sha256~abcdefghijklmnopqrs'],
    ['a word that merely contains token', 'tokens=3', 'tokens=3'],
  ])('%s', (_what, input, want) => {
    expect(redactSecrets(input)).toBe(want);
  });

  it('redactJson redacts keys and values at any depth, and keeps other values', () => {
    expect(redactJson({ a: ['Bearer abcdef123', 3, null, true], 'token=k1': { b: 'x' } })).toEqual({ a: ['Bearer <redacted>', 3, null, true], 'token=<redacted>': { b: 'x' } });
  });
});

// Each character a terminal acts on (C0, DEL, C1) or that reorders text (bidi marks and overrides, isolates) or
// breaks it into lines (U+2028/2029), and how safeText shows it.
const CONTROLS: Array<[string, string]> = [
  ['\u0000', '\\x00'],
  ['\u0007', '\\x07'],
  ['\u0008', '\\x08'],
  ['\u001b', '\\x1b'],
  ['\r', '\\x0d'],
  ['\n', '\\x0a'],
  ['\u007f', '\\x7f'],
  ['\u0085', '\\x85'],
  ['\u009b', '\\x9b'],
  ['\u009f', '\\x9f'],
  ['\u061c', '\\u061c'],
  ['\u200e', '\\u200e'],
  ['\u200f', '\\u200f'],
  ['\u2028', '\\u2028'],
  ['\u2029', '\\u2029'],
  ['\u202a', '\\u202a'],
  ['\u202e', '\\u202e'],
  ['\u2066', '\\u2066'],
  ['\u2069', '\\u2069'],
];

describe('safeText, escapeMarkdown, escapeHtml, truncate', () => {
  it.each(CONTROLS)('safeText shows %j as %s', (c, shown) => {
    expect(safeText(`a${c}b`)).toBe(`a${shown}b`);
  });

  it('leaves printable text, tabs excepted, alone (é, 中, emoji)', () => {
    expect(safeText('é 中 🚀 ok')).toBe('é 中 🚀 ok');
  });

  it('escapes Markdown metacharacters and angle brackets, after control characters', () => {
    expect(escapeMarkdown('a|b*c_d`e[f]g~h\\i<j>k\u001b')).toBe('a\\|b\\*c\\_d\\`e\\[f\\]g\\~h\\\\i&lt;j&gt;k\\\\x1b');
  });

  it('does not let Markdown turn an e-mail address or a URL into a link', () => {
    expect(escapeMarkdown('alice@example.com')).toBe('`alice@example.com`');
    expect(escapeMarkdown('x|alice@example.com')).toBe('x\\|alice＠example.com');
    expect(escapeMarkdown('see https://x.example/a and www.x.example')).toBe('see https\\://x.example/a and www\\.x.example');
    // & is escaped only where it would start an entity: a query string stays as written
    expect(escapeMarkdown('a & b')).toBe('a & b');
    expect(escapeMarkdown('resourceVersion=0&limit=500')).toBe('resourceVersion=0&limit=500');
    expect(escapeMarkdown('&lt;b&gt; &#60; &#x3c;')).toBe('&amp;lt;b&amp;gt; &amp;#60; &amp;#x3c;');
  });

  it('escapes every HTML metacharacter, quotes included', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  it.each([
    ['abc', 0, ''],
    ['abc', -1, ''],
    ['abc', 1, '…'],
    ['abc', 2, 'a…'],
    ['abc', 3, 'abc'],
    ['abc', 4, 'abc'],
  ])('truncate(%j, %d) is %j', (s, w, want) => {
    expect(truncate(s, w)).toBe(want);
  });
});

describe('every control character, in every output format', () => {
  // One list group per character: its user agent is `ua<c>x/1`.
  const log =
    CONTROLS.map(([c], i) =>
      auditLine({ auditID: `c${i}`, userAgent: `ua${c}x/${i}`, user: { username: `u${i}` }, requestURI: '/api/v1/pods?limit=500&resourceVersion=0' }),
    ).join('\n') + '\n';
  const run = async (fmt: string): Promise<string> => (await runCli(['-o', fmt, '--width', '400', '--top', '50', '-'], log)).stdout;
  const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

  it('table: each shown as its escape, none raw', async () => {
    const out = await run('table');
    expect(RAW.test(out)).toBe(false);
    CONTROLS.forEach(([, shown], i) => expect(out).toContain(`ua${shown}x/${i}`));
  });

  it('markdown: the escape, with its backslash escaped for Markdown', async () => {
    const out = await run('markdown');
    expect(RAW.test(out)).toBe(false);
    CONTROLS.forEach(([, shown], i) => expect(out).toContain(`ua\\${shown}x/${i}`));
  });

  it('html: the escape, as text', async () => {
    const out = await run('html');
    expect(RAW.test(out)).toBe(false);
    CONTROLS.forEach(([, shown], i) => expect(out).toContain(`ua${shown}x/${i}`));
  });

  it('json: the characters themselves, written as \\u escapes so the bytes are inert', async () => {
    const out = await run('json');
    expect(RAW.test(out)).toBe(false);
    const agents = new Set(JSON.parse(out).listGroups.map((g: { userAgent: string }) => g.userAgent));
    CONTROLS.forEach(([c], i) => expect(agents.has(`ua${c}x/${i}`)).toBe(true));
    // JSON's own short forms for \b, \n and \r; \uXXXX for every other one
    const short: Record<string, string> = { '\b': '\\b', '\n': '\\n', '\r': '\\r' };
    CONTROLS.forEach(([c], i) => expect(out).toContain(`"ua${short[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`}x/${i}"`));
  });
});
