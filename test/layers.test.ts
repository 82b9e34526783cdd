// The layout tells the data flow (issue 26): input/ → decode/ → aggregate/ → analyze/ → render/ → store/ →
// segment/ → parallel/ → scan/ → cli/, with model/ beneath them all. A module imports only from its own folder or
// from a folder below it, and no modules import each other in a circle (type-only imports included: a circle of
// types is still two modules that cannot be understood apart). scan/ drives the pool of parallel/; both read
// segments through segment/ (one segment's bytes: where to cut, how to feed a ScanState).
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from './support.js';

/** Each top folder of src/ and its rank: an import may go to the same rank or a lower one. */
export const LAYERS: Record<string, number> = {
  model: 0,
  input: 1,
  decode: 2,
  aggregate: 3,
  analyze: 4,
  render: 5,
  store: 6,
  segment: 7,
  parallel: 8,
  scan: 9,
  cli: 10,
};

const SRC = join(ROOT, 'src');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) {
      if (e !== 'assembly') out.push(...sources(p)); // the engine's AssemblyScript is compiled apart
    } else if (e.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** The src/ files a module imports (static, dynamic and type-only imports, and `new URL(…)` of a module). */
export function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out = new Set<string>();
  for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+|new URL\(\s*)'(\.{1,2}\/[^']+)'/g)) {
    const spec = m[1]!;
    if (!spec.endsWith('.js')) continue;
    const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
    if (target.startsWith(SRC)) out.add(target);
  }
  return [...out];
}

const topOf = (f: string): string => relative(SRC, f).split('/')[0]!;

describe('the layers of src/', () => {
  const files = sources(SRC);
  const graph = new Map(files.map((f) => [f, importsOf(f)]));

  it('every module is in a folder of a known layer', () => {
    const loose = files.filter((f) => LAYERS[topOf(f)] === undefined).map((f) => relative(ROOT, f));
    expect(loose).toEqual([]);
  });

  it('no import climbs to a later layer', () => {
    const climbs: string[] = [];
    for (const [f, deps] of graph) {
      for (const d of deps) {
        if ((LAYERS[topOf(d)] ?? 99) > (LAYERS[topOf(f)] ?? -1)) climbs.push(`${relative(SRC, f)} → ${relative(SRC, d)}`);
      }
    }
    expect(climbs).toEqual([]);
  });

  it('every imported module exists', () => {
    const missing: string[] = [];
    for (const [f, deps] of graph) for (const d of deps) if (!graph.has(d)) missing.push(`${relative(SRC, f)} → ${relative(SRC, d)}`);
    expect(missing).toEqual([]);
  });

  it('no circles', () => {
    // Tarjan's strongly connected components: any component of more than one module is a circle.
    let index = 0;
    const idx = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const on = new Set<string>();
    const circles: string[][] = [];
    const visit = (v: string): void => {
      idx.set(v, index);
      low.set(v, index++);
      stack.push(v);
      on.add(v);
      for (const w of graph.get(v) ?? []) {
        if (!graph.has(w)) continue;
        if (!idx.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
      }
      if (low.get(v) === idx.get(v)) {
        const c: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          on.delete(w);
          c.push(relative(SRC, w));
        } while (w !== v);
        if (c.length > 1) circles.push(c.sort());
      }
    };
    for (const f of graph.keys()) if (!idx.has(f)) visit(f);
    expect(circles).toEqual([]);
  });

  it('the checks see a climb and a circle (they can fail)', () => {
    // A module of aggregate/ that imported analyze/report.ts would climb; report imports aggregate/: a circle.
    expect(LAYERS.aggregate! < LAYERS.analyze!).toBe(true);
    expect(importsOf(join(SRC, 'analyze/report.ts')).some((d) => topOf(d) === 'aggregate')).toBe(true);
  });
});
