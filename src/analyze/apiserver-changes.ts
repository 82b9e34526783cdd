/*! One job: the apiserver's own restarts as changes `diff --split-at` can cut at (issue 47 #1). kube-apiserver
 * writes, at each start, its flags one a line (`FLAG: --goaway-chance="0.001"`, V(1)), its version (`Version:
 * v1.30.1`) and, once up, `Serving securely on …`. Per input (and per apiserver a wrapper or syslog names), each
 * start's flags are compared with the start before it: a flag whose value differs, or that appears or goes, is an
 * `apiserver-flag` change, a new version an `apiserver-version` change, at the later start's time (its "Serving
 * securely" line, else its first flag line). The values of flags that may hold a secret are never kept. */

import { classifyLine, stripPrefixes } from '../decode/line-kind.js';
import { klogJsonOf, klogTimeMs, noteOf, parseKlogMessage } from '../decode/apiserver-log.js';
import { unwrapRecord } from '../decode/wrappers.js';
import type { LogChange } from './changes.js';

/** A flag whose name says it may hold a secret, or a credential: its value is never shown, only `(set)`. */
const SECRET_FLAG = /token|passw|secret|key|credential/i;
/** A value that carries one whatever its flag: a JWT, a URL's user:password, a bearer or basic credential, a
 * `token=`-like pair. */
const SECRET_VALUE = /eyJ[A-Za-z0-9_-]{4,}\.|\/\/[^/\s@]*:[^/\s@]*@|\b(?:bearer|basic)\s|\b(?:token|access_token|id_token|password|passwd|secret|apikey|api_key)=/i;
/** Values are cut to this many characters before they are shown (a --feature-gates list can be long). */
const MAX_VALUE = 120;
/** Wrappers inside wrappers, at most (as the scan's line decoder). */
const MAX_DEPTH = 4;
/** Every apiserver flag dump holds it (PrintFlags prints every flag, set or not); the controller-manager's and the
 * scheduler's do not: a dump without it is another component's. */
const APISERVER_FLAG = 'etcd-servers';

/** Whether a raw line may say something of a start: one search each for the few words it must hold (most lines of
 * a log hold none). */
export function mayBeStart(line: Buffer): boolean {
  return line.includes('FLAG: --') || line.includes('Serving securely') || line.includes('Version: v') || line.includes('"Version');
}

/** Whether a flag's value may be shown. */
export function isSecretFlag(name: string, value: string): boolean {
  return SECRET_FLAG.test(name) || SECRET_VALUE.test(value);
}

/** A flag's value as the change shows it: quoted and cut; `(not set)` when the start's dump lacks it. */
function shown(v: string | undefined): string {
  if (v === undefined) return '(not set)';
  return JSON.stringify(v.length > MAX_VALUE ? v.slice(0, MAX_VALUE) + '…' : v);
}

/** Old → new of a flag, with a secret's values left out: `(set)`, `(changed)`, `(not set)`, or `""` when empty. */
export function flagChangeShown(name: string, from: string | undefined, to: string | undefined): { from: string; to: string } {
  const secret = (from !== undefined && isSecretFlag(name, from)) || (to !== undefined && isSecretFlag(name, to));
  if (!secret) return { from: shown(from), to: shown(to) };
  const masked = (v: string | undefined): string => (v === undefined ? '(not set)' : v.length === 0 ? '""' : '(set)');
  return { from: masked(from), to: from !== undefined && to !== undefined && from.length > 0 && to.length > 0 ? '(changed)' : masked(to) };
}

/** One start of one apiserver, as its lines show it. */
interface Start {
  flags: Map<string, string> | null;
  firstFlagMs: number | null;
  version: string | null;
  versionMs: number | null;
  servingMs: number | null;
}

interface Server {
  /** where its changes say they are: the input, and the apiserver a wrapper names */
  where: string;
  cur: Start | null;
  prev: Start | null;
  lastVersion: string | null;
}

/** Reads one input's lines; `changes()` gives what its restarts changed. */
export class ApiserverRestarts {
  private readonly servers = new Map<string, Server>();
  private readonly found: LogChange[] = [];

  constructor(
    /** the input's name, as the changes say where they are */
    private readonly input: string,
    /** "now" and --syslog-year, to date klog's times as the scan does */
    private readonly nowMs: number,
    private readonly syslogYear: number | null,
  ) {}

  /** One line of the input, as bytes. */
  line(raw: Buffer): void {
    if (!mayBeStart(raw)) return;
    this.text(raw.toString('utf8').replace(/\u0000+/g, ''), '', 0);
  }

  /** The changes, in the input's order, once every line is read. */
  changes(): LogChange[] {
    for (const s of this.servers.values()) this.close(s);
    return this.found;
  }

  private text(s: string, server: string, depth: number): void {
    if (depth > MAX_DEPTH) return;
    const k = classifyLine(s, this.nowMs, this.syslogYear);
    if (k.kind === 'cri') return this.text(k.text, server, depth + 1);
    if (k.kind === 'json') {
      let v: unknown;
      try {
        v = JSON.parse(k.text);
      } catch {
        return;
      }
      return this.value(v, server, depth);
    }
    if (k.kind !== 'klog') return;
    const h = k.header;
    // syslog and journald name the program: a controller-manager's start in the same file is not the apiserver's
    const ident = k.wrapper === 'syslog' || k.wrapper === 'journald' ? (stripPrefixes(s, this.nowMs, this.syslogYear).ident ?? '') : '';
    const m = parseKlogMessage(h.msg);
    this.note(server, ident, m.text, m.kv, h.caller, k.tsMs ?? klogTimeMs(h, this.nowMs, this.syslogYear));
  }

  private value(v: unknown, server: string, depth: number): void {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || depth > MAX_DEPTH) return;
    const o = v as Record<string, unknown>;
    const kj = klogJsonOf(o);
    if (kj !== null) return this.note(server, '', kj.msg, kj.kv, kj.caller, kj.tsMs);
    const u = unwrapRecord(o);
    if (u === null) return;
    const named = u.apiserver ?? server;
    for (const t of u.texts ?? []) this.text(t, named, depth + 1);
    for (const x of u.values ?? []) this.value(x, named, depth + 1);
  }

  /** One message of the apiserver named `server` (by a wrapper; '' when none) or of the program syslog names. */
  private note(server: string, ident: string, text: string, kv: Map<string, string>, caller: string, tsMs: number | null): void {
    const n = noteOf(text, kv, caller);
    if (n.kind !== 'start' || tsMs === null) return;
    const key = `${server}\u0000${ident}`;
    let s = this.servers.get(key);
    if (s === undefined) this.servers.set(key, (s = { where: server.length > 0 ? `${this.input} (${server})` : this.input, cur: null, prev: null, lastVersion: null }));
    let cur = s.cur;
    // a start ends at its "Serving securely" line; a second flag dump, or a second version, before it is the next start's
    const next = cur === null || cur.servingMs !== null || (n.flag !== undefined && cur.flags !== null && cur.flags.has(n.flag.name)) || (n.what === 'version' && cur.version !== null);
    if (next) {
      this.close(s);
      cur = s.cur = { flags: null, firstFlagMs: null, version: null, versionMs: null, servingMs: null };
    }
    if (n.flag !== undefined) {
      (cur!.flags ??= new Map()).set(n.flag.name, n.flag.value);
      cur!.firstFlagMs ??= tsMs;
    } else if (n.what === 'version' && n.version !== undefined && n.version.length > 0) {
      cur!.version = n.version;
      cur!.versionMs = tsMs;
    } else if (n.what === 'serving securely') cur!.servingMs = tsMs;
  }

  /** A start read whole: compared with the one before it. */
  private close(s: Server): void {
    const c = s.cur;
    s.cur = null;
    if (c === null) return;
    if (c.flags !== null && !c.flags.has(APISERVER_FLAG)) return;
    const atMs = c.servingMs ?? c.firstFlagMs ?? c.versionMs;
    if (atMs === null) return;
    const change = (kind: string, what: string, from: string, to: string): LogChange => ({ atMs, kind, namespace: '', name: what, verb: 'restart', username: '', userAgent: '', restart: { from, to, input: s.where } });
    if (c.version !== null && s.lastVersion !== null && c.version !== s.lastVersion) this.found.push(change('apiserver-version', c.version, s.lastVersion, c.version));
    if (c.version !== null) s.lastVersion = c.version;
    const p = s.prev;
    // a start at -v=0 writes no flags: the flags of the starts on either side of it are not compared
    if (p !== null && p.flags !== null && c.flags !== null) {
      for (const f of [...new Set([...p.flags.keys(), ...c.flags.keys()])].sort()) {
        const a = p.flags.get(f);
        const b = c.flags.get(f);
        if (a === b) continue;
        const sh = flagChangeShown(f, a, b);
        this.found.push(change('apiserver-flag', f, sh.from, sh.to));
      }
    }
    s.prev = c;
  }
}
