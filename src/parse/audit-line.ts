/*! The fast path for one audit JSON line: a partial JSON.parse that materialises only the members audit-scan
 * reads (see normalizeAuditEvent and ScanState.addJsonValue) and walks over the rest without building it.
 *
 * Why: JSON.parse builds every member of every event (groups, sourceIPs, annotations, responseStatus.metadata)
 * and is over half of a scan's CPU. Metadata-level events, nearly every line of a real audit log, need about a
 * dozen short strings.
 *
 * The contract, checked by test/parse/audit-line.test.ts on every fixture and on random corruptions:
 *   parseAuditLine(s) is null, or JSON.parse(s) succeeds and every member read downstream is equal.
 * So null is always safe (the caller runs JSON.parse), and the parser declines whatever it was not built for:
 * whitespace between tokens, request or response bodies, batch and wrapper shapes, floats in unexpected places,
 * deep nesting, and keys with escapes. Escaped string values (Go writes `&` as `\u0026`) are decoded by
 * JSON.parse of that one string, so escape handling is exactly JSON's.
 *
 * One leniency, stated: a raw control character (U+0000–U+001F) inside a string makes a line invalid JSON, and
 * this parser does not look for one (it would cost a pass over every character). Go's encoder never writes one,
 * so such a line is damaged; it is read like its neighbours instead of being skipped as "not JSON". */

const Q = 34; // "
const BS = 92; // \
const COLON = 58;
const COMMA = 44;
const LBRACE = 123;
const RBRACE = 125;
const LBRACK = 91;
const RBRACK = 93;

/** Members whose presence sends the line to JSON.parse: bodies (item counts, token TTLs) and batch shapes. */
const DECLINE = new Set(['requestObject', 'responseObject', 'items', 'records', 'logEvents', 'properties', 'protoPayload', 'Entry']);

/** Kept top-level string members (the rest of the strings are walked over). */
const TOP_STRINGS = new Set(['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'userAgent', 'requestReceivedTimestamp', 'stageTimestamp', 'timestamp']);

const NODE_NAME = 'authentication.kubernetes.io/node-name';

interface ObjectRef {
  resource: string | undefined;
  namespace: string | undefined;
  name: string | undefined;
  apiGroup: string | undefined;
  subresource: string | undefined;
}

class Decline extends Error {}
const DECLINE_ERR = new Decline();

/** Cursor over one line. `bs` is the index of the next backslash at or after the cursor (or Infinity). */
class Cursor {
  i = 0;
  bs = Infinity;
  constructor(readonly s: string) {
    this.resetEscapes();
  }

  /** Finds the first backslash again (after the cursor moved back). */
  resetEscapes(): void {
    const b = this.s.indexOf('\\');
    this.bs = b < 0 ? Infinity : b;
  }

  /** At an opening quote: returns the index of the closing quote and moves past it; `esc` tells whether the
   * string held a backslash. */
  endOfString(): number {
    const s = this.s;
    const start = this.i + 1;
    let q = s.indexOf('"', start);
    if (q < 0) throw DECLINE_ERR;
    if (this.bs < q) {
      // Escapes inside: a quote preceded by an odd run of backslashes is not the end.
      for (;;) {
        let k = q - 1;
        while (s.charCodeAt(k) === BS) k--;
        if ((q - 1 - k) % 2 === 0) break;
        q = s.indexOf('"', q + 1);
        if (q < 0) throw DECLINE_ERR;
      }
      this.escaped = true;
      const b = s.indexOf('\\', q + 1);
      this.bs = b < 0 ? Infinity : b;
    } else {
      this.escaped = false;
    }
    this.i = q + 1;
    return q;
  }

  escaped = false;

  /** At an opening quote (the caller has checked it): the string's value. */
  string(): string {
    const start = this.i;
    const q = this.endOfString();
    if (!this.escaped) return this.s.slice(start + 1, q);
    const v: unknown = JSON.parse(this.s.slice(start, q + 1));
    return v as string;
  }

  /** At an opening quote of a key: the key, then past the colon. Keys with escapes are declined. */
  key(): string {
    if (this.s.charCodeAt(this.i) !== Q) throw DECLINE_ERR;
    const start = this.i + 1;
    const q = this.endOfString();
    if (this.escaped) throw DECLINE_ERR;
    if (this.s.charCodeAt(this.i) !== COLON) throw DECLINE_ERR;
    this.i++;
    return this.s.slice(start, q);
  }

  expect(c: number): void {
    if (this.s.charCodeAt(this.i) !== c) throw DECLINE_ERR;
    this.i++;
  }

  /** After a member: true if another follows (consumes the comma), false at the closing brace (consumed). */
  next(close: number): boolean {
    const c = this.s.charCodeAt(this.i++);
    if (c === COMMA) return true;
    if (c === close) return false;
    throw DECLINE_ERR;
  }

  /** An integer in JSON's grammar (no fraction or exponent: those are declined). */
  integer(): number {
    const s = this.s;
    const start = this.i;
    let i = start;
    if (s.charCodeAt(i) === 45) i++;
    const d0 = s.charCodeAt(i);
    if (d0 === 48) i++;
    else if (d0 >= 49 && d0 <= 57) {
      i++;
      for (let c = s.charCodeAt(i); c >= 48 && c <= 57; c = s.charCodeAt(++i));
    } else throw DECLINE_ERR;
    const c = s.charCodeAt(i);
    if (c === 46 || c === 101 || c === 69) throw DECLINE_ERR;
    this.i = i;
    return i - start < 16 ? +s.slice(start, i) : Number(s.slice(start, i));
  }

  /** Walks over any value, validating it as JSON (strings by their quotes, see the leniency above). */
  skip(depth = 0): void {
    const s = this.s;
    const c = s.charCodeAt(this.i);
    if (c === Q) {
      const start = this.i;
      const q = this.endOfString();
      if (this.escaped) JSON.parse(s.slice(start, q + 1)); // invalid escapes make the line invalid
      return;
    }
    if (c === LBRACE || c === LBRACK) {
      if (depth > 32) throw DECLINE_ERR;
      const close = c === LBRACE ? RBRACE : RBRACK;
      this.i++;
      if (s.charCodeAt(this.i) === close) {
        this.i++;
        return;
      }
      do {
        if (close === RBRACE) this.key();
        this.skip(depth + 1);
      } while (this.next(close));
      return;
    }
    if (c === 116 /* t */ && s.startsWith('true', this.i)) this.i += 4;
    else if (c === 102 /* f */ && s.startsWith('false', this.i)) this.i += 5;
    else if (c === 110 /* n */ && s.startsWith('null', this.i)) this.i += 4;
    else this.integer();
  }

  /** objectRef: the members normalizeAuditEvent reads must be strings; the others are walked over. */
  objectRef(): ObjectRef {
    const o: ObjectRef = { resource: undefined, namespace: undefined, name: undefined, apiGroup: undefined, subresource: undefined };
    this.expect(LBRACE);
    if (this.s.charCodeAt(this.i) === RBRACE) {
      this.i++;
      return o;
    }
    do {
      const k = this.key();
      if (k === 'resource' || k === 'namespace' || k === 'name' || k === 'apiGroup' || k === 'subresource') {
        if (this.s.charCodeAt(this.i) !== Q) throw DECLINE_ERR;
        o[k] = this.string();
      } else {
        this.skip(1);
      }
    } while (this.next(RBRACE));
    return o;
  }

  /** user: keeps username and extra's node name (what normalizeAuditEvent reads). */
  user(): { username: string | undefined; extra: Record<string, unknown> | undefined } {
    const o: { username: string | undefined; extra: Record<string, unknown> | undefined } = { username: undefined, extra: undefined };
    this.expect(LBRACE);
    if (this.s.charCodeAt(this.i) === RBRACE) {
      this.i++;
      return o;
    }
    do {
      const k = this.key();
      if (k === 'username') {
        if (this.s.charCodeAt(this.i) !== Q) throw DECLINE_ERR;
        o.username = this.string();
      } else if (k === 'extra') {
        o.extra = this.extra();
      } else {
        this.skip();
      }
    } while (this.next(RBRACE));
    return o;
  }

  /** user.extra: keeps only the node-name list's first element. */
  extra(): Record<string, unknown> {
    const o: Record<string, unknown> = {};
    this.expect(LBRACE);
    if (this.s.charCodeAt(this.i) === RBRACE) {
      this.i++;
      return o;
    }
    do {
      const k = this.key();
      if (k === NODE_NAME && this.s.charCodeAt(this.i) === LBRACK && this.s.charCodeAt(this.i + 1) === Q) {
        this.i++;
        const first = this.string();
        while (this.next(RBRACK)) this.skip(2);
        o[k] = [first];
      } else {
        this.skip(1);
        if (k === NODE_NAME) throw DECLINE_ERR; // an unusual shape: let JSON.parse build it
      }
    } while (this.next(RBRACE));
    return o;
  }

  /** responseStatus: keeps code (an integer); the rest is walked over. */
  status(): Record<string, unknown> {
    const o: Record<string, unknown> = {};
    this.expect(LBRACE);
    if (this.s.charCodeAt(this.i) === RBRACE) {
      this.i++;
      return o;
    }
    do {
      const k = this.key();
      if (k === 'code') {
        const c = this.s.charCodeAt(this.i);
        if (c === 45 || (c >= 48 && c <= 57)) o.code = this.integer();
        else throw DECLINE_ERR;
      } else {
        this.skip(1);
      }
    } while (this.next(RBRACE));
    return o;
  }
}

/** The result: one fixed shape (fast property access downstream); an absent member is undefined, which every
 * reader treats as absent. Members walked over are recorded as `true` only for `in` checks, in `other`. */
function newEvent(): Record<string, unknown> {
  return {
    kind: undefined,
    apiVersion: undefined,
    level: undefined,
    auditID: undefined,
    stage: undefined,
    requestURI: undefined,
    verb: undefined,
    user: undefined,
    userAgent: undefined,
    objectRef: undefined,
    responseStatus: undefined,
    requestReceivedTimestamp: undefined,
    stageTimestamp: undefined,
    timestamp: undefined,
  };
}

/** A copy of `s` that does not keep the line it was cut from alive. V8 makes a substring of 13 characters or
 * more a view into its parent; an auditID kept for dedup would otherwise hold its whole line (a 200 MB scan
 * peaked at 300 MB instead of 135 MB). Long-lived keys elsewhere go through this too. */
export function detach(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

function detachOrUndefined(s: string | undefined): string | undefined {
  return s === undefined ? undefined : detach(s);
}

/** Parses one audit-event line, or returns null when JSON.parse must (see the contract above). */
export function parseAuditLine(s: string): Record<string, unknown> | null {
  if (s.charCodeAt(0) !== LBRACE || s.charCodeAt(1) !== Q) return null;
  const c = new Cursor(s);
  try {
    return canonical(c) ?? anyOrder(c);
  } catch (e) {
    if (e === DECLINE_ERR || e instanceof SyntaxError) return null;
    throw e;
  }
}

/** A string member at the cursor if the text there is `prefix` (which ends with the opening quote's position). */
function canonicalString(c: Cursor, prefix: string): string | undefined {
  if (!c.s.startsWith(prefix, c.i) || c.s.charCodeAt(c.i + prefix.length) !== Q) return undefined;
  c.i += prefix.length;
  return c.string();
}

/** The straight line: kube-apiserver's own member order, with the optional members where it puts them. Returns
 * undefined (cursor reset) at the first difference, and the general parser takes over. */
function canonical(c: Cursor): Record<string, unknown> | null | undefined {
  const s = c.s;
  c.i = 8;
  if (!s.startsWith('{"kind":"', 0)) return undefined;
  const kind = c.string();
  const apiVersion = canonicalString(c, ',"apiVersion":');
  const level = canonicalString(c, ',"level":');
  const auditID = detachOrUndefined(canonicalString(c, ',"auditID":'));
  const stage = canonicalString(c, ',"stage":');
  const requestURI = canonicalString(c, ',"requestURI":');
  const verb = canonicalString(c, ',"verb":');
  if (kind !== 'Event' || verb === undefined || !s.startsWith(',"user":', c.i)) return undefined;
  if (apiVersion === undefined || level === undefined || auditID === undefined || stage === undefined || requestURI === undefined) return undefined;
  c.i += 8;
  const user = c.user();
  if (s.startsWith(',"impersonatedUser":', c.i)) {
    c.i += 20;
    c.skip();
  }
  if (s.startsWith(',"sourceIPs":', c.i)) {
    c.i += 13;
    c.skip();
  }
  const userAgent = canonicalString(c, ',"userAgent":');
  let objectRef: ObjectRef | undefined;
  if (s.startsWith(',"objectRef":', c.i)) {
    c.i += 13;
    objectRef = c.objectRef();
  }
  let responseStatus: Record<string, unknown> | undefined;
  if (s.startsWith(',"responseStatus":', c.i)) {
    c.i += 18;
    responseStatus = c.status();
  }
  if (s.startsWith(',"requestObject":', c.i) || s.startsWith(',"responseObject":', c.i)) return null;
  const requestReceivedTimestamp = canonicalString(c, ',"requestReceivedTimestamp":');
  const stageTimestamp = canonicalString(c, ',"stageTimestamp":');
  if (s.startsWith(',"annotations":', c.i)) {
    c.i += 15;
    c.skip();
  }
  if (c.i !== s.length - 1 || s.charCodeAt(c.i) !== RBRACE) return undefined;
  return { kind, apiVersion, level, auditID, stage, requestURI, verb, user, userAgent, objectRef, responseStatus, requestReceivedTimestamp, stageTimestamp, timestamp: undefined };
}

/** The general parser: members in any order, unknown members walked over. */
function anyOrder(c: Cursor): Record<string, unknown> | null {
  const s = c.s;
  c.i = 1;
  c.resetEscapes();
  const o = newEvent();
  do {
    const k = c.key();
    if (TOP_STRINGS.has(k)) {
      if (s.charCodeAt(c.i) !== Q) return null;
      o[k] = k === 'auditID' ? detach(c.string()) : c.string();
    } else if (k === 'user') {
      o.user = c.user();
    } else if (k === 'objectRef') {
      o.objectRef = c.objectRef();
    } else if (k === 'responseStatus') {
      o.responseStatus = c.status();
    } else if (DECLINE.has(k) || k === '__proto__') {
      return null;
    } else {
      c.skip(); // present, never read
    }
  } while (c.next(RBRACE));
  if (c.i !== s.length) return null;
  if (o.kind !== 'Event') return null; // anything else goes through the full dispatch
  return o;
}
