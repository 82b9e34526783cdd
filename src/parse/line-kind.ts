/*! One text line → what it is: JSON (after removing `kubectl logs` / hostname prefixes), an etcd capnslog
 * line, a klog or Go-panic line (recognised, no event), blank, or unknown. No streams here: strings in, kinds out. */

import { isCapnslogLine } from './etcd-line.js';

export type LineKind =
  | { kind: 'blank' }
  | { kind: 'json'; text: string; prefixed: boolean }
  | { kind: 'capnslog' }
  | { kind: 'other'; what: 'klog' | 'go-panic' }
  | { kind: 'unknown' };

// kubectl logs --timestamps: RFC 3339 with nanoseconds, then one space.
const K8S_TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d) /;
// klog header: Lmmdd hh:mm:ss.uuuuuu threadid file:line]
const KLOG = /^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6}\s+\d+\s+[^\]\s]+\] /;
// Go runtime panic output (etcd and apiserver crashes end with one).
const GO_PANIC = /^(?:panic: |fatal error: |goroutine \d+ \[|created by |\[signal |\t|\s*\/\S+\.go:\d+(?: \+0x[0-9a-f]+)?$|[\w./*()-]+\(.*\)$)/;
// syslog/journald: "Dec  1 08:00:00 host proc[pid]: "
const SYSLOG = /^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ [^:\s]+: /;

/** Removes the prefixes kubectl and log shippers add. Returns the rest and whether anything was removed. */
export function stripPrefixes(line: string): { rest: string; prefixed: boolean } {
  let s = line;
  let prefixed = false;
  for (let guard = 0; guard < 4; guard++) {
    const c = s.charCodeAt(0);
    if (c === 123 /* { */) break;
    if (c === 91 /* [ */ && (s.startsWith('[pod/') || s.startsWith('[deployment/') || s.startsWith('[daemonset/') || s.startsWith('[statefulset/'))) {
      const close = s.indexOf('] ');
      if (close < 0) break;
      s = s.slice(close + 2);
      prefixed = true;
      continue;
    }
    if (c >= 48 && c <= 57) {
      const m = K8S_TS.exec(s);
      if (m) {
        s = s.slice(m[0].length);
        prefixed = true;
        continue;
      }
    }
    const sl = SYSLOG.exec(s);
    if (sl) {
      s = s.slice(sl[0].length);
      prefixed = true;
      continue;
    }
    break;
  }
  return { rest: s, prefixed };
}

/** Classifies one line (already decoded, without its line ending). */
export function classifyLine(line: string): LineKind {
  let s = line;
  if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
  if (s.length === 0) return { kind: 'blank' };
  const c0 = s.charCodeAt(0);
  if (c0 === 123) return { kind: 'json', text: s, prefixed: false }; // the common case: no copy, no regex
  if (s.trim().length === 0) return { kind: 'blank' };
  if (c0 === 123 || c0 === 91 && s.charCodeAt(1) !== 112 /* "[p" of [pod/ */) return { kind: 'json', text: s, prefixed: false };
  const { rest, prefixed } = stripPrefixes(s);
  const c = rest.charCodeAt(0);
  if (c === 123) return { kind: 'json', text: rest, prefixed };
  if (KLOG.test(rest)) return { kind: 'other', what: 'klog' };
  if (isCapnslogLine(rest)) return { kind: 'capnslog' };
  // "hostname {…}" (journald exports, some shippers): one token, then the object.
  const brace = rest.indexOf(' {');
  if (brace > 0 && brace < 256 && rest.lastIndexOf(' ', brace - 1) < 0 && rest.indexOf('{') === brace + 1) {
    return { kind: 'json', text: rest.slice(brace + 1), prefixed: true };
  }
  if (GO_PANIC.test(rest)) return { kind: 'other', what: 'go-panic' };
  return { kind: 'unknown' };
}
