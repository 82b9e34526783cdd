/*! Terminal layout by visible width (string-width: ANSI escapes take none, wide characters two): wrapping with
 * a hanging indent, cutting at the end or in the middle, and tables whose every line fits. Strings come in
 * safe (safeText) and go out safe: nothing here adds a character a terminal would act on. */

import Table from 'cli-table3';
import stringWidth from 'string-width';

/** Strings whose every character takes one column and is a grapheme of its own: printable ASCII, Latin-1 (not the
 * soft hyphen) and the Latin extensions, general punctuation (not the joiners, separators and format characters),
 * arrows, mathematical signs, box drawing, blocks and geometric shapes (not the two with emoji presentation). The
 * report's text is nearly all of these (sparklines, "…", "→", "–"), and string-width took 4-5 ms of each table for
 * them, and 10-15 ms more on first use to build its Unicode regular expressions and its segmenter; with these, a
 * string's width is its length. test/render/layout.test.ts holds every one of them to string-width's 1. */
const NARROW = /^[\x20-\x7e\xa0-\xac\xae-\u02ff\u2010-\u2027\u2030-\u205e\u2190-\u22ff\u2500-\u25fc]*$/;
export const isNarrow = (s: string): boolean => NARROW.test(s);

/** Columns `s` takes on a terminal. */
export const vw = (s: string): number => (NARROW.test(s) ? s.length : stringWidth(s));

let graphemes: Intl.Segmenter | null = null; // made on first use: its making loads ICU's break data
/** `s` as what a terminal draws as one character each: "⚠️" (a sign and VS16) or a family emoji is one. */
const clusters = (s: string): string[] => Array.from((graphemes ??= new Intl.Segmenter('en', { granularity: 'grapheme' })).segment(s), (g) => g.segment);

/** The longest prefix of `s` that takes at most `w` columns (s plain, without escapes). */
function headFit(s: string, w: number): string {
  if (NARROW.test(s)) return s.slice(0, Math.max(0, w));
  let out = '';
  let used = 0;
  for (const ch of clusters(s)) {
    const cw = stringWidth(ch);
    if (used + cw > w) break;
    out += ch;
    used += cw;
  }
  return out;
}

/** The longest suffix of `s` that takes at most `w` columns. */
function tailFit(s: string, w: number): string {
  if (NARROW.test(s)) return w <= 0 ? '' : s.slice(Math.max(0, s.length - w));
  const chars = clusters(s);
  let out = '';
  let used = 0;
  for (let i = chars.length - 1; i >= 0; i--) {
    const cw = stringWidth(chars[i]!);
    if (used + cw > w) break;
    out = chars[i]! + out;
    used += cw;
  }
  return out;
}

/** `s` cut to `w` columns with a trailing "…" when it is longer. */
export function cutEnd(s: string, w: number): string {
  if (vw(s) <= w) return s;
  if (w <= 0) return '';
  return headFit(s, w - 1) + '…';
}

/** `s` cut to `w` columns in the middle ("fixtures/demo/apis…-b-audit.log"), so that two names that share a
 * head and differ at the end stay apart. */
export function cutMiddle(s: string, w: number): string {
  if (vw(s) <= w) return s;
  if (w <= 1) return cutEnd(s, w);
  const tail = Math.floor((w - 1) / 2);
  return headFit(s, w - 1 - tail) + '…' + tailFit(s, tail);
}

/** Word-wraps `text` so every line fits `width`: the first line after `first`, the rest after `rest`. A word
 * longer than a line is split. Returns the lines, prefixes included. */
export function wrapLines(text: string, width: number, first: string, rest: string): string[] {
  const words = text.split(/\s+/).filter((w) => w.length > 0);
  const lines: string[] = [];
  let prefix = first;
  let cur = '';
  const room = (): number => Math.max(1, width - vw(prefix));
  const flush = (): void => {
    lines.push(prefix + cur);
    prefix = rest;
    cur = '';
  };
  for (let w of words) {
    for (;;) {
      const need = cur.length === 0 ? vw(w) : vw(cur) + 1 + vw(w);
      if (need <= room()) {
        cur = cur.length === 0 ? w : `${cur} ${w}`;
        break;
      }
      if (cur.length > 0) {
        flush();
        continue;
      }
      // a word wider than a whole line: split it
      // (at least one character, even a wide one in a one-column room, so that the loop always moves on)
      const head = headFit(w, room()) || clusters(w)[0]!;
      cur = head;
      flush();
      w = w.slice(head.length);
      if (w.length === 0) break;
    }
  }
  if (cur.length > 0 || lines.length === 0) flush();
  return lines;
}

/** A table column. `drop`: the order columns leave a table too narrow for them (1 first; 0 never). */
export interface Col {
  head: string;
  /** narrowest a text column shrinks to before columns are dropped */
  min: number;
  /** share of spare width; 0: never cut (numbers, times) */
  flex: number;
  align?: 'left' | 'right';
  drop?: number;
  /** columns (or the whole cell, if narrower) this one needs to be read: while a kept column gets less, the
   * next droppable column leaves, even though the minimums would fit */
  want?: number;
  /** how a cell too wide is cut: at the end (default) or in the middle (names, paths) */
  cut?: 'end' | 'middle';
}

const GAP = 2;

/** Column widths for `width`, or null when the columns cannot fit even at their minimums. */
function fit(cols: Col[], rows: string[][], width: number): number[] | null {
  const natural = cols.map((c, i) => Math.max(vw(c.head), ...rows.map((r) => vw(r[i]!))));
  const floor = cols.map((c, i) => (c.flex === 0 ? natural[i]! : Math.min(natural[i]!, Math.max(c.min, 1))));
  const chrome = GAP * (cols.length - 1);
  let spare = width - chrome - floor.reduce((s, w) => s + w, 0);
  if (spare < 0) return null;
  const widths = [...floor];
  // Give text columns what they want, in proportion to their flex, over a few passes.
  for (let pass = 0; pass < 4 && spare > 0; pass++) {
    const wanting = cols.map((_, i) => i).filter((i) => natural[i]! > widths[i]!);
    if (wanting.length === 0) break;
    const totalFlex = wanting.reduce((s, i) => s + Math.max(1, cols[i]!.flex), 0);
    let used = 0;
    for (const i of wanting) {
      const share = Math.max(1, Math.floor((spare * Math.max(1, cols[i]!.flex)) / totalFlex));
      const add = Math.min(share, natural[i]! - widths[i]!, spare - used);
      widths[i]! += add;
      used += add;
    }
    spare -= used;
    if (used === 0) break;
  }
  return widths;
}

function pad(s: string, w: number, align: 'left' | 'right'): string {
  const n = Math.max(0, w - vw(s));
  return align === 'right' ? ' '.repeat(n) + s : s + ' '.repeat(n);
}

/** Draws rows under a bold head so that every line fits `width`: text columns shrink to their minimum, then
 * columns leave in their `drop` order; cells too wide are cut. `bold` styles the head (no-op without colour). */
export function drawTable(cols: Col[], rows: string[][], width: number, bold: (s: string) => string = (s) => s): string {
  let keep = cols.map((_, i) => i);
  let widths = fit(cols, rows, width);
  const droppable = cols.map((c, i) => [c.drop ?? 0, i] as const).filter(([d]) => d > 0).sort((a, b) => a[0] - b[0]);
  const starved = (w: number[]): boolean =>
    keep.some((k, j) => {
      const want = cols[k]!.want;
      if (want === undefined) return false;
      const natural = Math.max(vw(cols[k]!.head), ...rows.map((r) => vw(r[k]!)));
      return w[j]! < Math.min(natural, want);
    });
  while ((widths === null || starved(widths)) && droppable.length > 0) {
    const [, i] = droppable.shift()!;
    keep = keep.filter((k) => k !== i);
    widths = fit(keep.map((k) => cols[k]!), rows.map((r) => keep.map((k) => r[k]!)), width);
  }
  const kc = keep.map((k) => cols[k]!);
  if (widths === null) {
    // even the kept columns at their minimums are too wide: share what there is
    const each = Math.max(1, Math.floor((width - GAP * (kc.length - 1)) / kc.length));
    widths = kc.map(() => each);
  }
  const cell = (s: string, j: number): string => {
    const w = widths![j]!;
    const c = kc[j]!;
    return pad(c.cut === 'middle' ? cutMiddle(s, w) : cutEnd(s, w), w, c.align ?? 'left');
  };
  const head = kc.map((c, j) => cell(c.head, j));
  const body = rows.map((r) => keep.map((k, j) => cell(r[k]!, j)));
  // cli-table3 draws the cells, already cut and padded here. Its width count (string-width 4) is older than the
  // terminal's: an emoji sequence or a character with VS16 counts otherwise, and it would pad that row out of
  // line, past the width. So its lines are used only when each is exactly as wide as the columns; else the same
  // cells are joined here.
  const line = widths.reduce((a, b) => a + b, 0) + GAP * (kc.length - 1);
  const t = new Table({ head, chars: PLAIN_CHARS, style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true }, wordWrap: false });
  for (const r of body) t.push(r);
  let lines = t.toString().split('\n');
  if (lines.length !== body.length + 1 || lines.some((l) => vw(l) !== line)) lines = [head, ...body].map((r) => r.join(' '.repeat(GAP)));
  lines[0] = bold(lines[0]!.trimEnd());
  return lines.map((l) => l.trimEnd()).join('\n');
}

/** No borders: columns apart by GAP spaces. */
const PLAIN_CHARS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: ' '.repeat(GAP),
};
