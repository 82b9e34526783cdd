/*! One audit Event line: its members in the order the apiserver writes them, each read by its reader, and
 * what a line needs to be a record (readEvent). */

import { bad, bytesAhead, internValue, keepString, keyIs, lineEnd, peek, pos, readString, rec, setI, skipValue, skipWs, strEnd, strEsc, strStart, timeValue, valLen, valPtr } from './json';
import { leaseRef, readAnnotations, readObjectRef, readRequestObject, readResponseObject, readStatus, readUser, reqHolder } from './objects';
import { bytesAre, parseQuery } from './query';
import { ID_METADATA, O_RECEIVED, O_STAGE_T, R_ID_L, R_ID_P, R_LEVEL, R_STAGE, R_UA, R_URI_L, R_URI_P, R_VERB, SCRATCH } from './setup';

// ---- one line ------------------------------------------------------------------------------------------

export const K_KIND: u32 = 1;
export const K_APIV: u32 = 2;
export const K_LEVEL: u32 = 4;
export const K_ID: u32 = 8;
export const K_STAGE: u32 = 16;
export const K_URI: u32 = 32;
export const K_VERB: u32 = 64;
export const K_USER: u32 = 128;
export const K_UA: u32 = 256;
export const K_REF: u32 = 512;
export const K_STATUS: u32 = 1024;
export const K_RECV: u32 = 2048;
export const K_STAGE_T: u32 = 4096;
export const K_ANN: u32 = 8192;
export const K_REQ_BODY: u32 = 16384;
export const K_RESP_BODY: u32 = 32768;

/** Reads one audit line into the record at `rec`; false when it leaves the fast path. */
export function readEvent(): bool {
  pos++; // '{'
  bad = false;
  leaseRef = 0;
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
        strStart = pos - <usize>k.length + 1;
        strEnd = pos - 2;
        strEsc = false;
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
        pos++;
        if (d == 0x7d) break;
        if (d != 0x2c) return false;
        continue;
      }
    }
    if (peek() != 0x22 || !readString(false)) return false;
    if (strEsc) return false; // an escaped member name
    skipWs();
    if (peek() != 0x3a) return false;
    pos++;
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
    pos++;
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
export const ORDER: string[] = ['"kind":', '"apiVersion":', '"level":', '"auditID":', '"stage":', '"requestURI":', '"verb":', '"user":', '"sourceIPs":', '"userAgent":', '"objectRef":', '"responseStatus":', '"requestReceivedTimestamp":', '"stageTimestamp":', '"annotations":'];
export const ORDER_ACT: u32[] = [K_KIND, K_APIV, K_LEVEL, K_ID, K_STAGE, K_URI, K_VERB, K_USER, 0, K_UA, K_REF, K_STATUS, K_RECV, K_STAGE_T, K_ANN];

/** The ORDER index after member `act` (a member read the usual way); `next` for a member not in it. */
export function orderAfter(act: u32, next: i32): i32 {
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

export let uriP: i32 = -1;
export let uriL: i32 = 0;

/** Reads the value of top-level member `act` (0: skipped); false when the line leaves the fast path. */
export function readMember(act: u32): bool {
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
