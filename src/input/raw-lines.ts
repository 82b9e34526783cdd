/*! One job: every line of a source as bytes, gunzipped when gzip, a line past a cap counted and skipped. For the
 * commands that read a log's lines whole, apart from the scan (policy, diff --split-at of a change). */

import type { Readable } from 'node:stream';
import { readBytes } from './sources.js';

/** Lines longer than this are skipped (and counted by `onLong`): a line is never held past it. */
export const MAX_RAW_LINE = 64 << 20;

export async function* rawLines(raw: Readable, onLong: () => void): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let held = 0;
  for await (const chunk of readBytes(raw, () => {})) {
    let from = 0;
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) {
      const piece = chunk.subarray(from, i);
      if (held + piece.length <= MAX_RAW_LINE) yield held === 0 ? piece : Buffer.concat([...parts, piece]);
      else onLong();
      parts = [];
      held = 0;
      from = i + 1;
    }
    if (from < chunk.length) {
      held += chunk.length - from;
      if (held <= MAX_RAW_LINE) parts.push(Buffer.from(chunk.subarray(from)));
    }
  }
  if (held > 0 && held <= MAX_RAW_LINE) yield Buffer.concat(parts);
  else if (held > MAX_RAW_LINE) onLong();
}

/** The JSON object a line holds after any prefix (kubectl --prefix, CRI, syslog), or null. */
export function jsonObjectOf(line: Buffer): Record<string, unknown> | null {
  const at = line.indexOf(123);
  if (at < 0) return null;
  try {
    const o: unknown = JSON.parse(line.subarray(at).toString('utf8'));
    return o !== null && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
