/*! One text line → what it is: JSON (after removing the prefixes container runtimes, kubectl, journald, syslog and
 * shippers add), an etcd capnslog line (with or without capnslog's own header), a part of a line a container
 * runtime split, a klog or Go-panic line (recognised, no event), blank, or unknown. Strings in, kinds out; the
 * name of each wrapper removed comes back with the line, so an input can say how it was read. */

import { isCapnslogLine } from './etcd-line.js';
import { isMetricsTextLine, parseMetricLine, type MetricSample } from './metrics.js';
import { parseTimestampMs } from './time.js';
import { parseKlogHeader, type KlogHeader } from './apiserver-log.js';

export type LineKind =
  | { kind: 'blank' }
  | { kind: 'json'; text: string; prefixed: boolean; wrapper: string | null }
  | { kind: 'capnslog'; text: string; wrapper: string | null }
  /** an etcd message whose capnslog header syslog or journald replaced with its own: the time is the prefix's */
  | { kind: 'capnslog-bare'; pkg: string; text: string; tsMs: number | null; wrapper: string }
  /** a CRI line of the `P` (partial) kind: its text continues in the next line of the same stream */
  | { kind: 'partial'; text: string; wrapper: 'cri' }
  /** a CRI `F` line: the end of a line (whole, or the last part of one), to classify again without the prefix */
  | { kind: 'cri'; text: string }
  | { kind: 'other'; what: string }
  /** a klog line (the apiserver's own log, or another component's): its header, and the time a wrapper gave */
  | { kind: 'klog'; header: KlogHeader; wrapper: string | null; tsMs: number | null }
  /** a line of the apiserver's log without a klog header: a trace block's continuation (`Trace[id]: …`), or a
   * message whose header a paster cut (`"HTTP" verb=…`) */
  | { kind: 'klog-bare'; text: string; wrapper: string | null; tsMs: number | null }
  /** a sample of a metric the analysis reads, from a Prometheus text dump (`kubectl get --raw /metrics`) */
  | { kind: 'metric'; sample: MetricSample }
  | { kind: 'unknown' };

// kubectl logs --timestamps and `aws logs tail --format short`: RFC 3339, then one space.
const K8S_TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d) /;
// containerd / CRI-O log files (/var/log/pods, /var/log/containers): "<RFC 3339 nano> stdout|stderr F|P <line>".
const CRI = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)) (?:stdout|stderr) ([FP])(?: |$)/;
// klog header: Lmmdd hh:mm:ss.uuuuuu threadid file:line]
const KLOG = /^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6}\s+\d+\s+[^\]\s]+\] /;
// a trace block's continuation line, which klog writes without a header; and httplog's message without its header
const TRACE_BARE = /^\s*Trace\[\d+\]: /;
const HTTPLOG_BARE = /^\s*"HTTP" verb=/;
// Go runtime panic output (etcd and apiserver crashes end with one).
const GO_PANIC = /^(?:panic: |fatal error: |goroutine \d+ \[|created by |\[signal |\t|\s*\/\S+\.go:\d+(?: \+0x[0-9a-f]+)?$|[\w./*()-]+\(.*\)$)/;
// syslog and journalctl's short and short-precise forms, any case of month: "Dec  1 08:00:00[.123456] host proc[pid]: "
const SYSLOG = /^([A-Za-z]{3}) ([ \d]\d) (\d\d):(\d\d):(\d\d)(\.\d+)? \S+ ([^:\s]+): /;
// journalctl -o short-iso: "2026-12-01T08:00:00+0000 host proc[pid]: " (the ISO time is read by K8S_TS first).
const HOST_IDENT = /^\S+ ([^:\s{]+)\[\d+\]: |^\S+ ([^:\s{]+): (?=\S)/;
// an etcd message with its capnslog package, or bare (syslog and journald dropped capnslog's header)
const BARE_ETCD = /^(?:([a-z][\w./-]*): )?(read-only range request |etcd Version: )/;
// the programs whose messages are etcd's: etcd itself, and k3s and RKE2, which embed it
const ETCD_IDENT = /^(?:etcd|k3s|rke2)\b/;
// etcd 3.4 with capnslog (its default logger) writes two more forms to stderr, each in every such log: raft's own
// Go logger, `log.New(os.Stderr, "raft", log.LstdFlags)` (raft/logger.go@v3.4.23), as in
// "raft2026/12/02 14:52:31 INFO: c53e2418d2a308ef became leader at term 2"; and the warnings about deprecated flags
// (embed/config_logging.go@v3.4.23), "[WARNING] Deprecated '--logger=capnslog' flag is set; use '--logger=zap' flag instead".
// Its gRPC library logs through grpclog's Go logger then (warnings and errors only), as in "WARNING: 2026/12/02
// 14:57:33 [core] grpc: addrConn.createTransport failed to connect to {127.0.0.1:2379 …}. … Reconnecting...".
const ETCD_RAFT = /^raft\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d(?:\.\d+)? (?:DEBUG|INFO|WARN|ERROR|FATAL|PANIC): /;
const ETCD_FLAG_WARNING = /^\[WARNING\] Deprecated '--[a-z-]+/;
const GRPC_LOG = /^(?:INFO|WARNING|ERROR|FATAL): \d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d(?:\.\d+)? /;
// Linux auditd (/var/log/audit/audit.log, the kernel's audit of syscalls: a file of the same name as the apiserver's)
const AUDITD = /^(?:node=\S+ )?type=[A-Z_]+ msg=audit\(\d+\.\d+:\d+\): /;
// `minikube logs` section headers: "==> etcd [e5c4b…] <==", "* ==> kube-apiserver [9a…] <=="
const MINIKUBE_HEADER = /^(?:\* )?==> .+ <==$/;
// a pod name (a DNS subdomain) and a container name (a DNS label), then a klog header or a trace's next line
const POD_CONTAINER = /^[a-z0-9](?:[-a-z0-9.]*[a-z0-9])? [a-z0-9](?:[-a-z0-9]*[a-z0-9])? (?=[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6} |Trace\[\d+\]: )/;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** What stripPrefixes found. */
export interface Prefixes {
  rest: string;
  prefixed: boolean;
  /** the outermost wrapper removed: kubectl, syslog, journald-iso, hostname; null when none */
  wrapper: string | null;
  /** the time the prefix gave, when it gave one (syslog has no year: the latest such date not after `nowMs`) */
  tsMs: number | null;
  /** the program syslog or journald names (etcd, k3s, kube-apiserver), when a prefix named one */
  ident: string | null;
}

/** Removes the prefixes kubectl and log shippers add. Returns the rest, what was removed and its time. A syslog
 * date is put in `year`, or when that is null in the latest year that does not put it after `nowMs`. */
export function stripPrefixes(line: string, nowMs = Date.now(), year: number | null = null): Prefixes {
  let s = line;
  let prefixed = false;
  let wrapper: string | null = null;
  let tsMs: number | null = null;
  let ident: string | null = null;
  const note = (w: string): void => {
    prefixed = true;
    wrapper ??= w;
  };
  for (let guard = 0; guard < 4; guard++) {
    // Stryker disable next-line ConditionalExpression: a shortcut; no prefix below starts with "{"
    if (s.charCodeAt(0) === 123 /* { */) break;
    if (s.startsWith('[pod/') || s.startsWith('[deployment/') || s.startsWith('[daemonset/') || s.startsWith('[statefulset/')) {
      const close = s.indexOf('] ');
      if (close === -1) break;
      s = s.slice(close + 2);
      note('kubectl');
      continue;
    }
    const m = K8S_TS.exec(s);
    if (m) {
      tsMs ??= parseTimestampMs(m[0].trim());
      s = s.slice(m[0].length);
      // journalctl -o short-iso: the time, then "host ident[pid]: "
      const h = HOST_IDENT.exec(s);
      if (h) {
        ident ??= h[1] ?? h[2] ?? null;
        s = s.slice(h[0].length);
        note('journald');
      } else note('kubectl');
      continue;
    }
    // `minikube logs` bullets each line of a component's log ("* 2026-11-30 10:00:00.000000 W | etcdserver: …")
    if (s.startsWith('* ') && (s.charCodeAt(2) === 123 || /^\* \d{4}-\d\d-\d\d[ T]\d\d:|^\* [IWEF]\d{4} |^\* Trace\[\d+\]: /.test(s))) {
      s = s.slice(2);
      note('minikube');
      continue;
    }
    const sl = SYSLOG.exec(s);
    if (sl) {
      tsMs ??= syslogTime(sl, nowMs, year);
      ident ??= sl[7]!.replace(/\[\d+\]$/, '');
      s = s.slice(sl[0].length);
      note('syslog');
      continue;
    }
    // stern and kubetail: "<pod> <container> " before a klog line or a trace's next line
    const pc = POD_CONTAINER.exec(s);
    if (pc) {
      s = s.slice(pc[0].length);
      note('pod and container');
      continue;
    }
    break;
  }
  return { rest: s, prefixed, wrapper, tsMs, ident };
}

/** A syslog date has no year: `year`, or the latest year that does not put it more than a day after `nowMs`. */
function syslogTime(m: RegExpExecArray, nowMs: number, year: number | null): number | null {
  const month = MONTHS.indexOf(m[1]!.toLowerCase());
  if (month < 0) return null;
  const frac = m[6] === undefined ? 0 : Math.floor(Number(m[6]) * 1000);
  const at = (y: number): number => Date.UTC(y, month, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])) + frac;
  if (year !== null) return at(year);
  const y = new Date(nowMs).getUTCFullYear();
  return at(y) > nowMs + 86_400_000 ? at(y - 1) : at(y);
}

/** Classifies one line (already decoded, without its line ending). `nowMs` and `year` date syslog prefixes. */
export function classifyLine(line: string, nowMs = Date.now(), year: number | null = null): LineKind {
  let s = line;
  if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
  const c0 = s.charCodeAt(0);
  // Stryker disable next-line ConditionalExpression: a shortcut (every event line takes it); the rules below give the same answer
  if (c0 === 123) return { kind: 'json', text: s, prefixed: false, wrapper: null }; // the common case: no copy, no regex
  if (s.trim().length === 0) return { kind: 'blank' };
  // "[" opens a JSON array unless a word follows: "[pod/…] " (kubectl), "[signal SIGSEGV…" (a Go panic)
  if (c0 === 91) {
    const c1 = s.charCodeAt(1);
    if ((c1 < 97 || c1 > 122) && !ETCD_FLAG_WARNING.test(s)) return { kind: 'json', text: s, prefixed: false, wrapper: null };
  }
  const cri = CRI.exec(s);
  if (cri) {
    const text = s.slice(cri[0].length);
    return cri[2] === 'P' ? { kind: 'partial', text, wrapper: 'cri' } : { kind: 'cri', text };
  }
  const { rest, prefixed, wrapper, tsMs, ident } = stripPrefixes(s, nowMs, year);
  const c = rest.charCodeAt(0);
  if (c === 123) return { kind: 'json', text: rest, prefixed, wrapper };
  if (KLOG.test(rest)) {
    const header = parseKlogHeader(rest);
    if (header !== null) return { kind: 'klog', header, wrapper, tsMs };
    return { kind: 'other', what: 'klog' };
  }
  // a leading space (a paste, some shippers) before a klog header
  if (c === 32 && KLOG.test(rest.trimStart())) {
    const header = parseKlogHeader(rest.trimStart());
    if (header !== null) return { kind: 'klog', header, wrapper: wrapper ?? 'leading space', tsMs };
  }
  if (TRACE_BARE.test(rest) || HTTPLOG_BARE.test(rest)) return { kind: 'klog-bare', text: rest.trimStart(), wrapper, tsMs };
  if (AUDITD.test(rest)) return { kind: 'other', what: 'linux-auditd' };
  if (MINIKUBE_HEADER.test(rest)) return { kind: 'other', what: 'minikube logs header' };
  if (isCapnslogLine(rest)) return { kind: 'capnslog', text: rest, wrapper };
  if (ETCD_RAFT.test(rest)) return { kind: 'other', what: 'etcd raft' };
  if (ETCD_FLAG_WARNING.test(rest)) return { kind: 'other', what: 'etcd flag warning' };
  if (GRPC_LOG.test(rest)) return { kind: 'other', what: 'grpc' };
  // etcd under syslog or journald, whose capnslog header ("date time L | pkg: ") the prefix replaced; the
  // package may stay ("etcdserver: read-only range request …") or go ("etcd: read-only range request …").
  // Stryker disable next-line StringLiteral,LogicalOperator: a null ident reads as "null" or any other stand-in, which names no etcd program
  const etcdIdent = ETCD_IDENT.test(ident ?? '');
  if (wrapper !== null) {
    const b = BARE_ETCD.exec(rest);
    if (b !== null && (b[2] === 'read-only range request ' || etcdIdent)) {
      return { kind: 'capnslog-bare', pkg: b[1] ?? (b[2] === 'etcd Version: ' ? 'etcdmain' : 'etcdserver'), text: b[1] === undefined ? rest : rest.slice(b[1].length + 2), tsMs, wrapper };
    }
    const m = ident === 'etcd' ? /^([a-z][\w./-]*): (?=\S)/.exec(rest) : null;
    if (m !== null) return { kind: 'capnslog-bare', pkg: m[1]!, text: rest.slice(m[0].length), tsMs, wrapper };
  }
  // A Prometheus text dump: the samples the analysis reads, and the rest recognised (a metric name holds '_').
  if (!prefixed && (c === 35 || rest.indexOf('_') > 0)) {
    const sample = parseMetricLine(rest);
    if (sample !== null) return { kind: 'metric', sample };
    if (isMetricsTextLine(rest) && (c === 35 || /^[a-zA-Z:]*_/.test(rest))) return { kind: 'other', what: 'prometheus metrics' };
  }
  // before "hostname {…}": a Go frame can look like one ("main.run(0xc000123, {0x1, 0x2})")
  if (GO_PANIC.test(rest)) return { kind: 'other', what: 'go-panic' };
  // "hostname {…}" (journald exports, some shippers): one token, then the object.
  const brace = rest.indexOf(' {');
  // (no " {" at all fails too: lastIndexOf(' ', -2) looks only at the first character, and the line does not open with "{")
  if (brace < 256 && rest.lastIndexOf(' ', brace - 1) === -1 && rest.indexOf('{') === brace + 1) {
    return { kind: 'json', text: rest.slice(brace + 1), prefixed: true, wrapper: wrapper ?? 'hostname' };
  }
  // Any other message of etcd's (k3s and RKE2 embed it) under syslog or journald: recognised, not an event.
  if (etcdIdent) return { kind: 'other', what: `etcd message (${wrapper})` };
  return { kind: 'unknown' };
}
