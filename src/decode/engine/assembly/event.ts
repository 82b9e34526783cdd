/*! One audit Event line: its top-level members, tried in the order the apiserver writes them, each read into
 * the record or skipped, and its request and response bodies skipped but for the counts and fields the scan needs. */

import { SCRATCH, ID_METADATA } from './regions';
import { R_STAGE, R_VERB, R_LEVEL, R_UA, R_ID_P, R_ID_L, R_URI_P, R_URI_L, R_RETURNED, O_RECEIVED, O_STAGE_T, O_REMAINING, rec, setI } from './record';
import { pos, lineEnd, strStart, strEnd, strEsc, valPtr, valLen, setPos, setStr, peek, skipWs, readString, keepString, skipValue, keyIs, bytesAhead, bytesAre, bodyKey, skipBody } from './bytes';
import { parseQuery } from './query';
import { bad, leaseRef, setBad, setLeaseRef, internValue, timeValue, readUser, readObjectRef, readStatus, readAnnotations } from './members';

// ---- bodies --------------------------------------------------------------------------------------------
//
// requestObject and responseObject (RequestResponse and Request levels) are most of the bytes of the lines that
// have them. They are skipped, validated as JSON.parse would take them (so a line the engine reads is one JSON.parse
// reads), and nothing in them is unescaped or interned; normalizeAuditEvent (src/decode/audit-event.ts) reads only
// this from them, and so does the engine:
//   responseObject.items, when an array: its length (returnedItems);
//   responseObject.metadata.remainingItemCount, when a number (remainingItems);
//   a top-level spec.expirationSeconds of either body (tokenExpirationSeconds: TokenRequests, CSRs): declined;
//   requestObject.spec.holderIdentity of an apiserver identity lease (leaseHolder): declined.
// The last of duplicate names wins, as in JSON.parse; an escaped name where one of these is looked for declines.

let reqHolder = false; // a requestObject's top-level spec has a holderIdentity

const M_RESPONSE: u32 = 0;
const M_REQUEST: u32 = 1;
const M_SPEC: u32 = 2;
const M_METADATA: u32 = 3;

/** Walks the members of the object at pos ('{'): after each name, the member function of `kind` reads or skips
 * the value (false: declined). False when the line leaves the fast path; a name with escapes declines. */
function eachMember(kind: u32): bool {
  setPos(pos + 1);
  skipWs();
  if (peek() == 0x7d) {
    setPos(pos + 1);
    return true;
  }
  for (;;) {
    if (!bodyKey() || strEsc) return false;
    const kl = <u32>(strEnd - strStart);
    let ok = false;
    if (kind == M_RESPONSE) ok = responseMember(kl);
    else if (kind == M_REQUEST) ok = requestMember(kl);
    else if (kind == M_SPEC) ok = specMember(kl);
    else ok = remainingMember(kl);
    if (!ok) return false;
    skipWs();
    const d = peek();
    setPos(pos + 1);
    if (d == 0x2c) continue;
    return d == 0x7d;
  }
}

/** The value of a body member when it is an array: its length; -1 for any other value; -2: invalid. */
function countItems(): i32 {
  skipWs();
  if (peek() != 0x5b) return skipBody() ? -1 : -2;
  setPos(pos + 1);
  skipWs();
  if (peek() == 0x5d) {
    setPos(pos + 1);
    return 0;
  }
  let n: i32 = 0;
  for (;;) {
    if (!skipBody()) return -2;
    n++;
    skipWs();
    const d = peek();
    setPos(pos + 1);
    if (d == 0x2c) continue;
    return d == 0x5d ? n : -2;
  }
}

/** metadata.remainingItemCount as a plain integer (what the apiserver writes); NaN for a value that is not a
 * number (null there); false for a number in another form (negative, a fraction, an exponent, 16 digits or more),
 * which JSON.parse reads and the JavaScript path takes. */
let remaining: f64 = NaN;
function remainingMember(kl: u32): bool {
  if (kl != 18 || !keyIs("remainingItemCount")) return skipBody();
  skipWs();
  const c = peek();
  if (c < 0x30 || c > 0x39) {
    if (c == 0x2d) return false;
    remaining = NaN;
    return skipBody();
  }
  if (c == 0x30 && pos + 1 < lineEnd && load<u8>(pos + 1) >= 0x30 && load<u8>(pos + 1) <= 0x39) return false; // 01
  let x: f64 = 0;
  let digits: u32 = 0;
  while (peek() >= 0x30 && peek() <= 0x39) {
    x = x * 10 + <f64>(peek() - 0x30);
    setPos(pos + 1);
    if (++digits > 15) return false;
  }
  const e = peek();
  if (e == 0x2e || e == 0x65 || e == 0x45) return false;
  remaining = x;
  return true;
}

/** spec at the top of a body: declines when it has expirationSeconds (tokenExpirationSeconds); notes holderIdentity
 * (an apiserver identity lease's leaseHolder, when this is the requestObject). */
let inRequest = false;
function specMember(kl: u32): bool {
  if (kl == 17 && keyIs("expirationSeconds")) return false;
  if (kl == 14 && keyIs("holderIdentity") && inRequest) reqHolder = true;
  return skipBody();
}

function readSpec(): bool {
  skipWs();
  if (peek() != 0x7b) return skipBody();
  return eachMember(M_SPEC);
}

function responseMember(kl: u32): bool {
  if (kl == 5 && keyIs("items")) {
    const n = countItems();
    if (n == -2) return false;
    setI(R_RETURNED, n);
    return true;
  }
  if (kl == 8 && keyIs("metadata")) {
    // a later metadata replaces an earlier one, and a metadata that is not an object (or has no count) gives none
    remaining = NaN;
    skipWs();
    if (peek() == 0x7b) {
      if (!eachMember(M_METADATA)) return false;
    } else if (!skipBody()) return false;
    store<f64>(rec, remaining, O_REMAINING);
    return true;
  }
  if (kl == 4 && keyIs("spec")) return readSpec();
  return skipBody();
}

function requestMember(kl: u32): bool {
  if (kl == 4 && keyIs("spec")) return readSpec();
  return skipBody();
}

/** responseObject: a later one replaces an earlier one (JSON.parse), so the counts start over. */
function readResponseObject(): void {
  setI(R_RETURNED, -1);
  store<f64>(rec, NaN, O_REMAINING);
  inRequest = false;
  skipWs();
  if (!(peek() == 0x7b ? eachMember(M_RESPONSE) : skipBody())) setBad(true);
}

function readRequestObject(): void {
  inRequest = true;
  skipWs();
  if (!(peek() == 0x7b ? eachMember(M_REQUEST) : skipBody())) setBad(true);
}

// ---- one line ------------------------------------------------------------------------------------------

const K_KIND: u32 = 1;
const K_APIV: u32 = 2;
const K_LEVEL: u32 = 4;
const K_ID: u32 = 8;
const K_STAGE: u32 = 16;
const K_URI: u32 = 32;
const K_VERB: u32 = 64;
const K_USER: u32 = 128;
const K_UA: u32 = 256;
const K_REF: u32 = 512;
const K_STATUS: u32 = 1024;
const K_RECV: u32 = 2048;
const K_STAGE_T: u32 = 4096;
const K_ANN: u32 = 8192;
const K_REQ_BODY: u32 = 16384;
const K_RESP_BODY: u32 = 32768;

/** Reads one audit line into the record at `rec`; false when it leaves the fast path. */
export function readEvent(): bool {
  setPos(pos + 1); // '{'
  setBad(false);
  setLeaseRef(0);
  reqHolder = false;
  let seen: u32 = 0;
  uriP = -1;
  uriL = 0;
  skipWs();
  if (peek() == 0x7d) return false;
  let next: i32 = 0; // the member the apiserver writes next (ORDER), tried first
  for (;;) {
    skipWs();
    let bit: u32 = 0;
    let act: u32 = 0; // 0 skip, 99 decline, else the member
    if (ASC_FEATURE_SIMD && next < ORDER.length) {
      const k = unchecked(ORDER[next]);
      if (bytesAhead(k)) {
        // "name": as predicted, read in one compare
        setStr(pos - <usize>k.length + 1, pos - 2, false);
        act = unchecked(ORDER_ACT[next]);
        next++;
        bit = act;
        if (!readMember(act)) return false;
        if (bit != 0) {
          if (seen & bit) return false;
          seen |= bit;
        }
        skipWs();
        const d = peek();
        setPos(pos + 1);
        if (d == 0x7d) break;
        if (d != 0x2c) return false;
        continue;
      }
    }
    if (peek() != 0x22 || !readString(false)) return false;
    if (strEsc) return false; // an escaped member name
    skipWs();
    if (peek() != 0x3a) return false;
    setPos(pos + 1);
    const kl = <u32>(strEnd - strStart);
    // Dispatch on the name's length, then compare: most members are tried once.
    switch (kl) {
      case 3:
        if (keyIs("log")) act = 99;
        break;
      case 4:
        if (keyIs("verb")) act = K_VERB;
        else if (keyIs("kind")) act = K_KIND;
        else if (keyIs("user")) act = K_USER;
        break;
      case 5:
        if (keyIs("stage")) act = K_STAGE;
        else if (keyIs("level")) act = K_LEVEL;
        else if (keyIs("items") || keyIs("Entry")) act = 99;
        break;
      case 7:
        if (keyIs("auditID")) act = K_ID;
        else if (keyIs("records")) act = 99;
        break;
      case 9:
        if (keyIs("userAgent")) act = K_UA;
        else if (keyIs("objectRef")) act = K_REF;
        else if (keyIs("logEvents") || keyIs("timestamp")) act = 99;
        break;
      case 10:
        if (keyIs("requestURI")) act = K_URI;
        else if (keyIs("apiVersion")) act = K_APIV;
        else if (keyIs("properties") || keyIs("kubernetes")) act = 99;
        break;
      case 11:
        if (keyIs("annotations")) act = K_ANN;
        break;
      case 12:
        if (keyIs("protoPayload")) act = 99;
        break;
      case 13:
        if (keyIs("requestObject")) act = K_REQ_BODY;
        break;
      case 14:
        if (keyIs("stageTimestamp")) act = K_STAGE_T;
        else if (keyIs("responseStatus")) act = K_STATUS;
        else if (keyIs("responseObject")) act = K_RESP_BODY;
        break;
      case 24:
        if (keyIs("requestReceivedTimestamp")) act = K_RECV;
        break;
    }
    // markers a converter adds ("__queryUnknown"): the JavaScript path
    if (act == 0 && kl > 2 && load<u8>(strStart) == 0x5f && load<u8>(strStart + 1) == 0x5f) act = 99;
    if (act == 99) return false; // batches, wrappers, legacy times, markers: the JavaScript path
    // a body may come twice: the last wins (readResponseObject starts over), as in JSON.parse
    bit = act == K_REQ_BODY || act == K_RESP_BODY ? 0 : act;
    next = orderAfter(act, next);
    if (!readMember(act)) return false;
    if (bit != 0) {
      if (seen & bit) return false; // JSON.parse keeps the last of duplicate names: leave those to it
      seen |= bit;
    }
    skipWs();
    const d = peek();
    setPos(pos + 1);
    if (d == 0x7d) break;
    if (d != 0x2c) return false;
  }
  skipWs();
  if (pos != lineEnd) return false; // text after the object
  // required, as normalizeAuditEvent requires them
  if ((seen & (K_STAGE | K_VERB | K_URI | K_STAGE_T)) != (K_STAGE | K_VERB | K_URI | K_STAGE_T)) return false;
  if (!(seen & K_RECV)) store<f64>(rec, load<f64>(rec, O_STAGE_T), O_RECEIVED);
  // an apiserver identity lease written with its holder: leaseHolder, read by the JavaScript path
  if (leaseRef == 7 && reqHolder) return false;
  setI(R_URI_P, uriP);
  setI(R_URI_L, uriL);
  return parseQuery(SCRATCH + <usize>uriP, <u32>uriL);
}

// The members in the order the apiserver writes them (audit.Event's fields; impersonatedUser, requestObject and
// responseObject, when present, are read the usual way and the order picks up after them).
const ORDER: string[] = ['"kind":', '"apiVersion":', '"level":', '"auditID":', '"stage":', '"requestURI":', '"verb":', '"user":', '"sourceIPs":', '"userAgent":', '"objectRef":', '"responseStatus":', '"requestReceivedTimestamp":', '"stageTimestamp":', '"annotations":'];
const ORDER_ACT: u32[] = [K_KIND, K_APIV, K_LEVEL, K_ID, K_STAGE, K_URI, K_VERB, K_USER, 0, K_UA, K_REF, K_STATUS, K_RECV, K_STAGE_T, K_ANN];

/** The ORDER index after member `act` (a member read the usual way); `next` for a member not in it. */
function orderAfter(act: u32, next: i32): i32 {
  switch (act) {
    case K_KIND: return 1;
    case K_APIV: return 2;
    case K_LEVEL: return 3;
    case K_ID: return 4;
    case K_STAGE: return 5;
    case K_URI: return 6;
    case K_VERB: return 7;
    case K_USER: return 8;
    case K_UA: return 10;
    case K_REF: return 11;
    case K_STATUS: return 12;
    case K_REQ_BODY: return 12;
    case K_RESP_BODY: return 12;
    case K_RECV: return 13;
    case K_STAGE_T: return 14;
    case K_ANN: return 15;
  }
  return next;
}

let uriP: i32 = -1;
let uriL: i32 = 0;

/** Reads the value of top-level member `act` (0: skipped); false when the line leaves the fast path. */
function readMember(act: u32): bool {
  if (act == 0) return skipValue(0);
  // one jump on the member's bit (a chain of compares took up to 15 a member, about 120 a line: the small lines
  // of the bench log 3% faster)
  switch (ctz(act)) {
    case 0: // K_KIND
      skipWs();
      if (bytesAhead('"Event"')) break;
      if (peek() != 0x22 || !readString(true) || !bytesAre(valPtr, valLen, "Event")) return false;
      break;
    case 1: // K_APIV
      skipWs();
      if (bytesAhead('"audit.k8s.io/v1"')) break;
      if (peek() != 0x22 || !readString(true)) return false;
      if (!bytesAre(valPtr, valLen, "audit.k8s.io/v1") && !bytesAre(valPtr, valLen, "audit.k8s.io/v1beta1") && !bytesAre(valPtr, valLen, "audit.k8s.io/v1alpha1")) return false;
      break;
    case 2: // K_LEVEL
      skipWs();
      if (bytesAhead('"Metadata"')) {
        setI(R_LEVEL, ID_METADATA);
        break;
      }
      setI(R_LEVEL, internValue());
      break;
    case 3: // K_ID
      skipWs();
      if (peek() != 0x22 || !readString(true)) return false;
      if (valLen == 0) setI(R_ID_P, -1);
      else {
        setI(R_ID_P, <i32>keepString());
        setI(R_ID_L, <i32>valLen);
      }
      break;
    case 4: // K_STAGE
      skipWs();
      if (bytesAhead('"ResponseComplete"')) {
        setI(R_STAGE, 2);
        break;
      }
      if (peek() != 0x22 || !readString(true)) return false;
      if (bytesAre(valPtr, valLen, "ResponseComplete")) setI(R_STAGE, 2);
      else if (bytesAre(valPtr, valLen, "RequestReceived")) setI(R_STAGE, 0);
      else if (bytesAre(valPtr, valLen, "ResponseStarted")) setI(R_STAGE, 1);
      else if (bytesAre(valPtr, valLen, "Panic")) setI(R_STAGE, 3);
      else return false;
      break;
    case 5: // K_URI
      skipWs();
      if (peek() != 0x22 || !readString(true)) return false;
      uriP = <i32>keepString();
      uriL = <i32>valLen;
      break;
    case 6: // K_VERB
      setI(R_VERB, internValue());
      break;
    case 7: // K_USER
      readUser();
      break;
    case 8: // K_UA
      setI(R_UA, internValue());
      break;
    case 9: // K_REF
      readObjectRef();
      break;
    case 10: // K_STATUS
      readStatus();
      break;
    case 11: // K_RECV
      store<f64>(rec, timeValue(), O_RECEIVED);
      break;
    case 12: // K_STAGE_T
      store<f64>(rec, timeValue(), O_STAGE_T);
      break;
    case 13: // K_ANN
      readAnnotations();
      break;
    case 14: // K_REQ_BODY
      readRequestObject();
      break;
    case 15: // K_RESP_BODY
      readResponseObject();
      break;
  }
  return !bad;
}
