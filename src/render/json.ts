/*! --output json: the ScanReport as one JSON document (contract documented in README "JSON output"). */

import type { ScanReport } from '../analyze/report.js';
import { redactJson } from './text-safety.js';

/** Renders the report as pretty JSON with a trailing newline. */
export function renderJson(r: ScanReport): string {
  return JSON.stringify(redactJson(r), null, 2) + '\n';
}
