// The terminal layout: every line of the table output fits the width it was given, at every width and on every
// kind of report (the demo incident, token waves, restarts, hostile and wide strings, GKE); names are cut in
// the middle so two inputs stay apart; help wraps at 80 columns with words whole.
import { describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { cutEnd, cutMiddle, drawTable, isNarrow, vw, wrapLines } from '../../src/render/layout.js';
import { commonDir } from '../../src/render/table.js';
import { auditLine, runCli } from '../support.js';

describe('cutting and wrapping by visible width', () => {
  it.each<[string, number, string]>([
    ['abcdef', 6, 'abcdef'],
    ['abcdef', 5, 'abcd…'],
    ['abcdef', 1, '…'],
    ['abcdef', 0, ''],
    ['日本語テキスト', 7, '日本語…'], // wide characters take two columns: 3 × 2 + 1
  ])('cutEnd(%j, %i) = %j', (s, w, out) => {
    expect(cutEnd(s, w)).toBe(out);
    expect(vw(cutEnd(s, w))).toBeLessThanOrEqual(w);
  });

  it.each<[string, number, string]>([
    ['fixtures/demo/apiserver-a-audit.log', 20, 'fixtures/d…audit.log'],
    ['fixtures/demo/apiserver-b-audit.log', 20, 'fixtures/d…audit.log'],
    ['fixtures/demo/apiserver-a-audit.log', 27, 'fixtures/demo…r-a-audit.log'],
    ['fixtures/demo/apiserver-b-audit.log', 27, 'fixtures/demo…r-b-audit.log'],
    ['short', 27, 'short'],
  ])('cutMiddle(%j, %i) = %j', (s, w, out) => expect(cutMiddle(s, w)).toBe(out));

  it('wraps words with a hanging indent, and splits only a word wider than a line', () => {
    expect(wrapLines('one two three four', 12, '1. ', '   ')).toEqual(['1. one two', '   three', '   four']);
    expect(wrapLines('abcdefghijkl', 6, '', '')).toEqual(['abcdef', 'ghijkl']);
    expect(wrapLines('', 10, '> ', '  ')).toEqual(['> ']);
    // a wide character in a one-column room still moves on, one character a line
    expect(wrapLines('日本', 1, '', '')).toEqual(['日', '本']);
  });

  it('a table drops columns in their order, then cuts text, and never passes its width', () => {
    const cols = [
      { head: 'name', min: 4, flex: 1 },
      { head: 'count', min: 5, flex: 0, align: 'right' as const },
      { head: 'note', min: 4, flex: 1, drop: 1 },
    ];
    const rows = [['kube-controller-manager', '1,300', 'a long note about it']];
    expect(drawTable(cols, rows, 80).split('\n')).toEqual(['name                     count  note', 'kube-controller-manager  1,300  a long note about it']);
    // 20 columns: text columns shrink towards their minimum and share what is left (name 6, note 5)
    expect(drawTable(cols, rows, 20).split('\n')).toEqual(['name    count  note', 'kube-…  1,300  a lo…']);
    // 12 columns: not even the minimums fit, so the note leaves and the name takes the rest
    expect(drawTable(cols, rows, 12).split('\n')).toEqual(['name   count', 'kube…  1,300']);
  });
});

// vw() takes a string's length for its width when every character is one of a set (layout.ts NARROW), without
// string-width: each of them must take one column by string-width's count and be a grapheme of its own, so that
// any string of them measures as string-width measures it, and cuts where a cut by graphemes would.
describe('the narrow characters: widths without string-width', () => {
  const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
  // the slow path, as layout.ts took it for every string before: graphemes and string-width
  const headBySegments = (s: string, w: number): string => {
    let out = '';
    let used = 0;
    for (const { segment } of segmenter.segment(s)) {
      const cw = stringWidth(segment);
      if (used + cw > w) break;
      out += segment;
      used += cw;
    }
    return out;
  };
  const narrow: string[] = [];
  for (let c = 0; c < 0x10000; c++) if (isNarrow(String.fromCharCode(c))) narrow.push(String.fromCharCode(c));

  it('each takes one column (string-width) and the set is the one written down', () => {
    for (const ch of narrow) expect(stringWidth(ch), `U+${ch.charCodeAt(0).toString(16)}`).toBe(1);
    // ASCII 95, Latin-1 and Latin extensions 13 + 594, punctuation 24 + 47, arrows and maths 368, boxes to 25FC 253
    expect(narrow.length).toBe(95 + 13 + 594 + 24 + 47 + 368 + 253);
    // and what is left out: the soft hyphen (no column), joiners and format characters, combining marks, wide and
    // emoji-presentation signs, control bytes
    for (const c of [0xad, 0x200b, 0x200d, 0x2028, 0x202e, 0x2060, 0x0301, 0xfe0f, 0x231a, 0x25fd, 0x25fe, 0x3042, 0x1b, 0x7f]) expect(isNarrow(String.fromCharCode(c))).toBe(false);
  });

  it('strings of them: the width, and the cuts, of graphemes and string-width (seeded)', () => {
    let seed = 7;
    const rand = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    for (let k = 0; k < 400; k++) {
      const n = Math.floor(rand() * 40);
      let s = '';
      for (let i = 0; i < n; i++) s += narrow[Math.floor(rand() * narrow.length)]!;
      // (a grapheme of its own: runs of them never join into one)
      expect([...segmenter.segment(s)].length, s).toBe(s.length);
      expect(vw(s), s).toBe(stringWidth(s));
      const w = Math.floor(rand() * 45);
      const head = w <= 0 || stringWidth(s) <= w ? null : headBySegments(s, w - 1) + '…';
      expect(cutEnd(s, w), s).toBe(head ?? (w <= 0 && stringWidth(s) > w ? '' : s));
      expect(vw(cutMiddle(s, w)), s).toBeLessThanOrEqual(Math.max(w, 0));
    }
  });
});

describe('inputs named from their folder', () => {
  it.each<[string[], string]>([
    [['fixtures/demo/a.log', 'fixtures/demo/b.log'], 'fixtures/demo/'],
    [['fixtures/demo/a.log', 'fixtures/demo-2/b.log'], 'fixtures/'],
    [['logs/apiserver-a.log', 'logs/apiserver-b.log'], 'logs/'], // the shared "apiserver-" is not a folder
    [['a.log', 'b.log'], ''],
    [['fixtures/demo/a.log'], ''], // one input keeps its whole name
    [['/var/log/a.log', '(stdin)'], ''],
  ])('%j → %j', (names, dir) => expect(commonDir(names)).toBe(dir));
});

describe('every line fits', () => {
  const inputs: Array<[string, string[]]> = [
    ['the demo incident', ['fixtures/demo']],
    ['the demo with --apf', ['fixtures/demo', '--apf']],
    ['token waves', ['fixtures/time/token-waves.log']],
    ['restarts', ['fixtures/time/restart-a.log', 'fixtures/time/restart-b-skewed.log']],
    ['hostile strings', ['fixtures/audit/hostile-strings.jsonl']],
    ['GKE', ['fixtures/wrapped/audit/gke.json']],
  ];
  for (const [name, args] of inputs) {
    it.each([40, 60, 80, 100, 120, 200])(`${name} at %i columns`, async (width) => {
      const r = await runCli([...args, '--width', String(width)]);
      expect(r.code).toBe(0);
      const over = r.stdout.split('\n').filter((l) => vw(l) > width);
      expect(over).toEqual([]);
    });
  }

  // user agents a terminal draws wider or narrower than their code points: CJK, Hangul, a combining accent, a
  // sign with VS16 and a family emoji (one cluster, two columns)
  const WIDE = ['日本語クライアント/1.0', '👩\u200d👩\u200d👧\u200d👦family/1', 'e\u0301e\u0301/2', 'ascii/1', '⚠\ufe0fwarn/1', '한국어/3']
    .map((ua, i) => auditLine({ auditID: `w${i}`, userAgent: ua, user: { username: `u${i}` } }))
    .join('\n') + '\n';
  it.each([40, 60, 80, 120])('wide and combining characters at %i columns', async (width) => {
    const r = await runCli(['--width', String(width), '-'], WIDE);
    expect(r.stdout.split('\n').filter((l) => vw(l) > width)).toEqual([]);
    // and the table's rows are all as wide as its head: nothing pads a row out of line
    const rows = r.stdout.split('\n').filter((l) => /^\s*[1-6] /.test(l));
    expect(rows).toHaveLength(6);
  });

  it('the first screen at 80×24 names the critical client and its fix', async () => {
    const first = (await runCli(['fixtures/demo', '--width', '80'])).stdout.split('\n').slice(0, 24).join('\n');
    expect(first).toContain('CRITICAL vector: 1,300 pod lists from etcd, 7,130 read / ~110 returned (65×)');
    expect(first).toContain('Send resourceVersion=0&resourceVersionMatch=NotOlderThan');
  });

  it('the findings stay on the first screen: the APF manifests are a one-line pointer unless --apf', async () => {
    const plain = (await runCli(['fixtures/demo', '--width', '120'])).stdout;
    expect(plain).not.toContain('kind: FlowSchema');
    expect(plain).toContain('APF: a FlowSchema and PriorityLevelConfiguration that queue this client: --apf prints them, --apf-out DIR writes them');
    const lines = plain.split('\n');
    expect(lines.findIndex((l) => l.startsWith('Findings'))).toBeLessThan(20);
    const withApf = (await runCli(['fixtures/demo', '--width', '120', '--apf'])).stdout;
    expect(withApf).toContain('kind: FlowSchema');
    expect(withApf).toContain('kind: PriorityLevelConfiguration');
  });

  it('inputs in one folder are named from it, so at 60 columns each keeps what tells it apart', async () => {
    const r = await runCli(['fixtures/demo', '--width', '60']);
    const lines = r.stdout.split('\n');
    const at = lines.indexOf('Inputs (in fixtures/demo/)');
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 2, at + 5).map((l) => l.split(/\s+/)[0])).toEqual(['apiserver-a-audit.log.gz', 'apiserver-b-audit.log', 'etcd-master-1.log']);
  });
});

describe('help', () => {
  it('wraps at 80 columns, words whole, and names the demo', async () => {
    const r = await runCli(['--help']);
    const lines = r.stdout.split('\n');
    expect(lines.filter((l) => vw(l) > 80)).toEqual([]);
    // a word split across lines would leave a fragment: every description word is whole
    expect(r.stdout).toContain('directories');
    expect(r.stdout).not.toMatch(/direct\n/);
    expect(r.stdout).toMatch(/audit-scan \S*fixtures\/demo/);
    const viaWord = await runCli(['help']);
    expect(viaWord.stdout).toBe(r.stdout);
  });
});
