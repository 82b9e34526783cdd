/*! --output json: the ScanReport as one JSON document (contract documented in README "JSON output"). */

import type { ScanReport } from '../analyze/report.js';
import { redactJson } from './text-safety.js';

// JSON.stringify escapes only U+0000–U+001F; DEL, C1 controls, line separators and bidi controls would reach
// a terminal that `cat`s the file. \uXXXX keeps the JSON equal and the bytes inert.
const UNSAFE_IN_JSON = /[\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Renders the report as pretty JSON with a trailing newline. */
export function renderJson(r: ScanReport): string {
  const text = JSON.stringify(redactJson(r), null, 2).replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return text + '\n';
}
