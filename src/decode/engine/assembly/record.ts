/*! A line's record, as the engine writes it and the host reads it (src/decode/engine/engine.ts, slots.ts): its
 * size, its fields, and the record being written. */

export const REC_BYTES: u32 = 176;

// Record fields (i32 slots; times are f64 at byte offsets 128 and 136, remainingItemCount an f64 at 144).
export const R_STATUS = 0; // 0 declined, 1 audit event, 2 the apiserver log's httplog line (readHttplog)
export const R_START = 1; // line start (byte offset in the input region)
export const R_END = 2; // line end, without \r
export const R_STAGE = 3; // 0 RequestReceived 1 ResponseStarted 2 ResponseComplete 3 Panic
export const R_VERB = 4;
export const R_LEVEL = 5; // -1: absent
export const R_USER = 6; // -1: absent
export const R_UA = 7; // -1: absent
export const R_NODE = 8; // user.extra node-name, -1: none
export const R_RESOURCE = 9; // -1: absent (objectRef, or its field, missing)
export const R_GROUP = 10;
export const R_NS = 11;
export const R_SUB = 12;
export const R_NAME_P = 13; // scratch offset, -1: absent
export const R_NAME_L = 14;
export const R_ID_P = 15; // -1: no auditID (the host names it)
export const R_ID_L = 16;
export const R_URI_P = 17;
export const R_URI_L = 18;
export const R_CODE = 19; // -1: none
export const R_RV_CLASS = 20; // 0 absent, 1 "0", 2 another value, 3 present and empty
export const R_RV_P = 21;
export const R_RV_L = 22;
export const R_RVM = 23; // -1: absent
export const R_LIMIT = 24; // 0: absent or not positive
export const R_FLAGS = 25; // 1 continue, 2 watch, 4 sendInitialEvents
export const R_FSEL = 26; // -1: absent
export const R_LSEL = 27; // -1: absent
export const R_NL = 28; // the line's \n (its raw end)
export const R_RETURNED = 29; // len(responseObject.items), -1: none (no body, or items is not an array)
export const O_RECEIVED = 128; // f64, NaN: absent
export const O_STAGE_T = 136; // f64
export const O_REMAINING = 144; // f64, responseObject.metadata.remainingItemCount, NaN: none
// (30 is slots.ts R_MARK; 40-43 and the f64 at 152 are the httplog line's: httplog.ts)

// the record being written (scan() sets it for each line)
export let rec: usize = 0;
@inline export function setI(f: i32, v: i32): void {
  store<i32>(rec + (<usize>f << 2), v);
}

@inline export function setRec(r: usize): void {
  rec = r;
}
