/*! --output json: the ScanReport as one JSON document (contract documented in docs/json-output.md). */

import type { ScanReport } from '../analyze/report.js';
import { redactJson, UNSAFE_IN_JSON } from './text-safety.js';

// JSON.stringify escapes only U+0000–U+001F; DEL, C1 controls, line separators and bidi controls would reach
// a terminal that `cat`s the file. \uXXXX keeps the JSON equal and the bytes inert.

/** Renders the report as pretty JSON with a trailing newline; `pretty` false: one line (--follow's stream).
 * Takes any value shaped like the report (--follow adds its live member). */
export function renderJson(r: ScanReport | Record<string, unknown>, pretty = true): string {
  const text = JSON.stringify(redactJson(r), null, pretty ? 2 : undefined).replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return text + '\n';
}
