/*! One job: an input's counts (InputStats): what a segment of it held, added into the input's at reconcile. */

import { MAX_METRIC_SAMPLES, type DecodeCounts, type SkipListener } from '../decode/line-decoder.js';
import { newSketch, sketchMerge, type TimeSketch } from './plausible.js';
import { fingerprintMerge, newFingerprint, type Fingerprint } from './fingerprint.js';
import { addApiserverLogStats } from '../decode/apiserver-log-reader.js';

/** Counts for one input (file or stdin): what the decoder counts (DecodeCounts: lines, skips, wrappers, metric
 * samples) and what the aggregator counts. The JSON contract's inputs[] is built from this. */
export interface InputStats extends DecodeCounts {
  format: 'lines' | 'documents';
  gzip: boolean;
  auditEvents: number;
  etcdEntries: number;
  duplicateEvents: number;
  error: string | null;
  firstMs: number | null;
  lastMs: number | null;
  /** events whose times cannot be real (before 1971, a day in the future, far from the rest of the input) */
  implausibleTimes: number;
  implausibleKinds: Map<string, number>;
  /** a bounded histogram of the input's plausible event times, for the "far from the rest" rule */
  sketch: TimeSketch;
  /** per-minute fingerprint of the requests counted, to find copies of one log given twice (fingerprint.ts) */
  fingerprint: Fingerprint;
  /** requests left out because an earlier input holds the same ones (a copy of the same log) */
  duplicateRequests: number;
  /** the earlier input this one copies (nearly all its requests are there), or null */
  duplicateOf: string | null;
  /** earlier inputs some of whose requests this one repeats (each counted once) */
  overlaps: Array<{ input: string; requests: number }>;
  /** lines the compiled engine read, and lines it declined (read in JavaScript): for --verbose */
  engineRead: number;
  engineDeclined: number;
  /** the file's modification time: when a metrics dump without timestamps was taken, unless its name says */
  fileTimeMs: number | null;
}

export { MAX_METRIC_SAMPLES, type SkipListener };

/** The input holds the apiserver's own log's requests (httplog lines, traces, timeouts): beside an audit log they
 * are its evidence, never counted again (TimeOptions.logAsEvidence). */
export function holdsLogRequests(i: InputStats): boolean {
  const al = i.apiserverLog;
  return al !== undefined && al.httplog + al.httplogLegacy + al.requestTraces + al.timeouts > 0;
}

/** Widens an input's span of event times to take `t`. */
export function touchTime(inp: InputStats, t: number): void {
  if (inp.firstMs === null || t < inp.firstMs) inp.firstMs = t;
  if (inp.lastMs === null || t > inp.lastMs) inp.lastMs = t;
}

/** Adds segment counts `b` into input counts `a`. */
export function addInputStats(a: InputStats, b: InputStats): void {
  a.lines += b.lines;
  a.auditEvents += b.auditEvents;
  a.etcdEntries += b.etcdEntries;
  a.otherLines += b.otherLines;
  a.skippedLines += b.skippedLines;
  a.blankLines += b.blankLines;
  a.repairedLines += b.repairedLines;
  a.skippedItems += b.skippedItems;
  a.duplicateEvents += b.duplicateEvents;
  for (const [k, n] of b.skipReasons) a.skipReasons.set(k, (a.skipReasons.get(k) ?? 0) + n);
  for (const [k, n] of b.otherKinds) a.otherKinds.set(k, (a.otherKinds.get(k) ?? 0) + n);
  if (b.format === 'documents') a.format = 'documents';
  if (b.gzip) a.gzip = true;
  a.error ??= b.error;
  if (b.firstMs !== null && (a.firstMs === null || b.firstMs < a.firstMs)) a.firstMs = b.firstMs;
  if (b.lastMs !== null && (a.lastMs === null || b.lastMs > a.lastMs)) a.lastMs = b.lastMs;
  a.implausibleTimes += b.implausibleTimes;
  a.duplicateRequests += b.duplicateRequests;
  fingerprintMerge(a.fingerprint, b.fingerprint);
  a.sample ??= b.sample;
  for (const [k, n] of b.wrappers) a.wrappers.set(k, (a.wrappers.get(k) ?? 0) + n);
  a.engineRead += b.engineRead;
  a.engineDeclined += b.engineDeclined;
  a.metricSamples += b.metricSamples;
  for (const m of b.metrics) if (a.metrics.length < MAX_METRIC_SAMPLES) a.metrics.push(m);
  a.fileTimeMs ??= b.fileTimeMs;
  if (b.apiserverLog !== undefined) {
    if (a.apiserverLog === undefined) a.apiserverLog = { ...b.apiserverLog, cacher: new Map(b.apiserverLog.cacher), callers: new Map(b.apiserverLog.callers), versions: new Map(b.apiserverLog.versions), versionFirstMs: new Map(b.apiserverLog.versionFirstMs) };
    else addApiserverLogStats(a.apiserverLog, b.apiserverLog);
  }
  for (const [k, n] of b.implausibleKinds) a.implausibleKinds.set(k, (a.implausibleKinds.get(k) ?? 0) + n);
  sketchMerge(a.sketch, b.sketch);
}

export function newInputStats(name: string): InputStats {
  return {
    name,
    format: 'lines',
    gzip: false,
    lines: 0,
    auditEvents: 0,
    etcdEntries: 0,
    otherLines: 0,
    skippedLines: 0,
    blankLines: 0,
    repairedLines: 0,
    skippedItems: 0,
    duplicateEvents: 0,
    skipReasons: new Map(),
    otherKinds: new Map(),
    error: null,
    firstMs: null,
    lastMs: null,
    implausibleTimes: 0,
    implausibleKinds: new Map(),
    sketch: newSketch(),
    fingerprint: newFingerprint(),
    duplicateRequests: 0,
    duplicateOf: null,
    overlaps: [],
    sample: null,
    wrappers: new Map(),
    engineRead: 0,
    engineDeclined: 0,
    metricSamples: 0,
    metrics: [],
    fileTimeMs: null,
  };
}
