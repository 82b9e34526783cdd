/*! Raw flags → a frozen ScanConfig, validated before the first byte is read (usage errors exit 2). */

import { availableParallelism } from 'node:os';
import { UsageError } from '../model/errors.js';
import { AUDIT_VERBS, parseDurationFlag, parseTimeFlag } from '../aggregate/filters.js';
import type { TimeOptions } from '../aggregate/scan-state.js';
import { parseKubeVersion, type KubeVersion } from '../model/kube-version.js';
import { minSplitFromEnv } from '../segment/range-cut.js';

export type OutputFormat = 'table' | 'json' | 'markdown' | 'html';

/** Everything the scan needs, resolved. */
export interface ScanConfig {
  files: string[];
  output: OutputFormat;
  /** --output was given (not the default): --follow into a pipe then writes that format alone */
  outputGiven: boolean;
  top: number;
  kubeVersion: KubeVersion | null;
  etcdVersion: string | null;
  /** --etcd-prefix, or null: inferred per key */
  etcdPrefix: string | null;
  objectsGiven: ReadonlyMap<string, number>;
  consistentListFromCache: boolean | null;
  watchCacheDisabled: ReadonlySet<string>;
  color: boolean;
  width: number;
  showApf: boolean;
  /** --follow: keep reading as the inputs grow; the view or a JSON line every intervalMs, over the last windowMs */
  follow: { intervalMs: number; windowMs: number } | null;
  /** --apf-out: a directory to write each finding's APF manifests to */
  apfOut: string | null;
  verbose: boolean;
  /** --engine, or AUDIT_SCAN_ENGINE: the compiled line engine, or JavaScript only */
  engine: 'wasm' | 'js';
  strict: boolean;
  threads: number;
  minSplitBytes: number | undefined;
  maxLineBytes: number | undefined;
  maxGroups: number;
  /** --redact: null = off; otherwise the key (null key inside = random per run) */
  redact: { key: string | null } | null;
  time: TimeOptions;
}

/** What the environment says, for defaults. */
export interface Env {
  stdoutIsTTY: boolean;
  columns: number | undefined;
  env: Record<string, string | undefined>;
}

const list = (v: unknown): string[] =>
  (Array.isArray(v) ? v : v === undefined ? [] : [v]).flatMap((x) => String(x).split(',')).map((s) => s.trim()).filter((s) => s.length > 0);

/** Validates raw commander values. */
export function resolveConfig(files: string[], raw: Record<string, unknown>, e: Env, nowMs = Date.now()): ScanConfig {
  const output = String(raw.output ?? 'table');
  if (!['table', 'json', 'markdown', 'html'].includes(output)) throw new UsageError(`--output: expected one of table, json, markdown, html (got ${JSON.stringify(output)})`);
  const top = Number(raw.top ?? 20);
  if (!Number.isInteger(top) || top < 1) throw new UsageError(`--top: expected a positive whole number (got ${JSON.stringify(raw.top)})`);
  let kubeVersion: KubeVersion | null = null;
  if (raw.kubeVersion !== undefined) {
    kubeVersion = parseKubeVersion(String(raw.kubeVersion));
    if (kubeVersion === null || kubeVersion.major !== 1) throw new UsageError(`--kube-version: expected a version like 1.29 or v1.29.4 (got ${JSON.stringify(raw.kubeVersion)})`);
  }
  let etcdVersion: string | null = null;
  if (raw.etcdVersion !== undefined) {
    etcdVersion = String(raw.etcdVersion);
    if (!/^v?\d+\.\d+\.\d+/.test(etcdVersion)) throw new UsageError(`--etcd-version: expected a version like 3.5.13 (got ${JSON.stringify(raw.etcdVersion)})`);
  }
  // Not given: inferred per key (/registry, or OpenShift's /kubernetes.io and /openshift.io; model/etcd-key.ts).
  const etcdPrefix = raw.etcdPrefix === undefined ? null : String(raw.etcdPrefix).replace(/\/+$/, '');
  if (etcdPrefix !== null && !etcdPrefix.startsWith('/')) throw new UsageError(`--etcd-prefix: expected an absolute key prefix like /registry (got ${JSON.stringify(raw.etcdPrefix)})`);
  const objectsGiven = new Map<string, number>();
  for (const kv of list(raw.objects)) {
    const m = /^([^=]+)=(\d+)$/.exec(kv);
    if (!m) throw new UsageError(`--objects: expected resource=count, e.g. pods=7130 (got ${JSON.stringify(kv)})`);
    objectsGiven.set(m[1]!.trim(), Number(m[2]));
  }
  let consistentListFromCache: boolean | null = null;
  if (raw.consistentListFromCache !== undefined) {
    const v = String(raw.consistentListFromCache);
    if (v !== 'on' && v !== 'off') throw new UsageError(`--consistent-list-from-cache: expected on or off (got ${JSON.stringify(v)})`);
    consistentListFromCache = v === 'on';
  }
  const watchCacheDisabled = new Set(['events', ...list(raw.watchCacheDisabled)]);
  let colorWhen = String(raw.color ?? 'auto');
  if (raw.color === false) colorWhen = 'never';
  if (!['auto', 'always', 'never'].includes(colorWhen)) throw new UsageError(`--color: expected one of auto, always, never (got ${JSON.stringify(colorWhen)})`);
  const noColorEnv = e.env.NO_COLOR !== undefined && e.env.NO_COLOR !== '';
  const color = colorWhen === 'always' || (colorWhen === 'auto' && e.stdoutIsTTY && !noColorEnv && e.env.TERM !== 'dumb');
  // A terminal's width; else COLUMNS, as `| less -R` in an 80-column pane sets it (like ls and git do); else 120.
  const envColumns = /^\d+$/.test(e.env.COLUMNS ?? '') ? Number(e.env.COLUMNS) : 0;
  let width = e.stdoutIsTTY && e.columns !== undefined && e.columns > 0 ? e.columns : envColumns >= 40 ? envColumns : 120;
  if (raw.width !== undefined) {
    width = Number(raw.width);
    if (!Number.isInteger(width) || width < 40) throw new UsageError(`--width: expected a whole number ≥ 40 (got ${JSON.stringify(raw.width)})`);
  }
  let threads = Math.min(availableParallelism(), 8);
  if (raw.threads !== undefined && raw.threads !== 'auto') {
    threads = Number(raw.threads);
    if (!Number.isInteger(threads) || threads < 1 || threads > 64) throw new UsageError(`--threads: expected auto or a whole number from 1 to 64 (got ${JSON.stringify(raw.threads)})`);
  }
  // For tests: split files and streams smaller than the default 32 MB.
  const minSplitBytes = minSplitFromEnv(e.env);
  // For tests: a smaller cap on one line than the default 256 MB.
  const maxLine = e.env.AUDIT_SCAN_MAX_LINE_BYTES;
  const maxLineBytes = maxLine !== undefined && /^\d+$/.test(maxLine) ? Number(maxLine) : undefined;
  const timeFlag = (name: string, v: unknown): number | null => {
    if (v === undefined) return null;
    const ms = parseTimeFlag(String(v), nowMs);
    if (ms === null) throw new UsageError(`--${name}: expected RFC 3339 (2026-11-30T10:00:00Z) or a duration like 30m (got ${JSON.stringify(v)})`);
    return ms;
  };
  const sinceMs = timeFlag('since', raw.since);
  const untilMs = timeFlag('until', raw.until);
  if (sinceMs !== null && untilMs !== null && untilMs <= sinceMs) throw new UsageError('--until: must be after --since');
  const dur = (name: string, v: unknown, min: number): number => {
    // A bare number is seconds, as `watch -n 1` and `tail -s 1` take it; units (500ms, 2s, 1m) as before.
    const text = String(v).trim();
    const ms = parseDurationFlag(/^\d+(?:\.\d+)?$/.test(text) ? `${text}s` : text);
    if (ms === null || ms < min) throw new UsageError(`--${name}: expected a duration like 1 (seconds), 500ms, 10s or 1m (got ${JSON.stringify(v)})`);
    return ms;
  };
  const bucketMs = dur('bucket', raw.bucket ?? '1s', 1000);
  if (bucketMs % 1000 !== 0) throw new UsageError(`--bucket: expected whole seconds (got ${JSON.stringify(raw.bucket)})`);
  const gapMs = raw.gap === undefined ? null : dur('gap', raw.gap, 1000);
  let syslogYear: number | null = null;
  if (raw.syslogYear !== undefined) {
    syslogYear = Number(raw.syslogYear);
    if (!/^\d{4}$/.test(String(raw.syslogYear)) || syslogYear < 1971) throw new UsageError(`--syslog-year: expected a year like 2026 (got ${JSON.stringify(raw.syslogYear)})`);
  }
  const verbs = list(raw.verb);
  const badVerb = verbs.find((v) => !AUDIT_VERBS.includes(v));
  if (badVerb !== undefined) throw new UsageError(`--verb: ${JSON.stringify(badVerb)} is no verb an audit event carries; expected one or more of ${AUDIT_VERBS.join(', ')}`);
  const time: TimeOptions = { filter: { sinceMs, untilMs, users: list(raw.user), verbs, resources: list(raw.resource), namespaces: list(raw.namespace) }, bucketMs, gapMs, nowMs, syslogYear };
  const follow = raw.follow === true ? { intervalMs: dur('interval', raw.interval ?? '2s', 100), windowMs: dur('window', raw.window ?? '5m', 1000) } : null;
  const maxGroups = Number(raw.maxGroups ?? 50000);
  if (!Number.isInteger(maxGroups) || maxGroups < 10) throw new UsageError(`--max-groups: expected a whole number ≥ 10 (got ${JSON.stringify(raw.maxGroups)})`);
  return Object.freeze({
    files,
    output: output as OutputFormat,
    // commander fills in the default: main.ts says whether the flag itself was given
    outputGiven: raw.outputGiven === true || (raw.outputGiven === undefined && raw.output !== undefined),
    top,
    kubeVersion,
    etcdVersion,
    etcdPrefix,
    objectsGiven,
    consistentListFromCache,
    watchCacheDisabled,
    color,
    width,
    showApf: raw.apf === true,
    follow,
    apfOut: typeof raw.apfOut === 'string' && raw.apfOut.length > 0 ? raw.apfOut : null,
    verbose: raw.verbose === true,
    engine: engineChoice(raw.engine, e.env.AUDIT_SCAN_ENGINE),
    strict: raw.strict === true,
    threads,
    minSplitBytes,
    maxLineBytes,
    maxGroups,
    time,
    redact: raw.redact === true || raw.redactKey !== undefined ? { key: raw.redactKey === undefined ? null : String(raw.redactKey) } : null,
  });
}

function engineChoice(flag: unknown, env: string | undefined): 'wasm' | 'js' {
  const v = flag ?? (env === undefined || env === '' ? 'wasm' : env);
  if (v !== 'wasm' && v !== 'js') throw new UsageError(`AUDIT_SCAN_ENGINE: expected wasm or js (got ${JSON.stringify(v)})`);
  return v;
}
