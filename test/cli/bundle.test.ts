// The CLI's bundle (scripts/bundle.mjs) as a scan's start loads it: the entry and the chunks it imports statically.
// The other commands, the renderers a scan may not need and stream-json are in chunks loaded when asked for; a
// static import of any of them from the scan's side would put it back in every start's compile (0.93 MB against
// 0.6: git log -- bench/README.md). Reads dist/, which `npm test` builds first.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = join(import.meta.dirname, '../../dist/cli');

/** The files a start loads: cli.bundle.js and what it imports from ./, transitively, with their text. */
function staticClosure(): Map<string, string> {
  const seen = new Map<string, string>();
  const walk = (f: string): void => {
    if (seen.has(f)) return;
    const text = readFileSync(join(DIR, f), 'utf8');
    seen.set(f, text);
    for (const m of text.matchAll(/^import\s(?:[^;]*?\sfrom\s*)?"\.\/([^"]+)"/gm)) walk(m[1]!);
  };
  walk('cli.bundle.js');
  return seen;
}

/** The modules esbuild put in a file (it marks each with a `// path` comment). */
const modulesIn = (text: string): string[] => [...text.matchAll(/^\/\/ ((?:dist|node_modules)\/\S+)$/gm)].map((m) => m[1]!);

describe.skipIf(!existsSync(join(DIR, 'cli.bundle.js')))("the CLI's bundle at a scan's start", () => {
  const start = staticClosure();
  const loaded = [...start.values()].flatMap(modulesIn);
  const later = readdirSync(DIR)
    .filter((f) => /^cli\.[A-Z0-9]+\.js$/.test(f) && !start.has(f))
    .flatMap((f) => modulesIn(readFileSync(join(DIR, f), 'utf8')));

  it('holds the scan', () => {
    for (const m of ['dist/cli/main.js', 'dist/cli/commands/scan.js', 'dist/scan/scan.js', 'dist/aggregate/scan-state.js', 'dist/analyze/report.js', 'dist/render/json.js', 'node_modules/commander/lib/command.js']) expect(loaded).toContain(m);
  });

  it('leaves the other commands, the other renderers and stream-json to chunks loaded when asked for', () => {
    const lazy = ['dist/cli/commands/store.js', 'dist/store/duckdb.js', 'dist/cli/commands/partial.js', 'dist/parallel/partial.js', 'dist/cli/commands/follow.js', 'dist/cli/completion.js', 'dist/render/table.js', 'dist/render/markdown.js', 'dist/render/html.js', 'dist/input/json-document.js'];
    for (const m of lazy) {
      expect(loaded).not.toContain(m);
      expect(later).toContain(m);
    }
    expect(loaded.filter((m) => m.startsWith('node_modules/stream-json/') || m.startsWith('node_modules/cli-table3/'))).toEqual([]);
  });

  it("imports none of Node's crypto at the start (--redact loads it)", () => {
    for (const text of start.values()) expect(text).not.toMatch(/from "node:crypto"|require\("node:crypto"\)|require\("crypto"\)/);
  });
});
