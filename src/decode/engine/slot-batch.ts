/*! The engine's batch form of the request record (issue 44): a slot, one request key of the engine's interned
 * strings and what its requests added (counts, times, returned items, latency, a sample URI), its per-bucket pairs,
 * and the mark bits the host sets on a record to have the module count it. ScanState's slot folding maps each slot
 * onto what ScanState.addRequest would have counted for its requests one by one (read groups, time series, clients). */

/** Mark bits the host sets on a line's record for the aggregator (slots.ts M_*). */
export const MARK_COUNT = 1;
export const MARK_READ = 2;
export const MARK_LISTING = 4;
export const MARK_WATCH_END = 8;

/** One slot of the aggregator (slots.ts): a request key of the engine's strings and what its requests added. */
export interface Slot {
  /** MARK_READ | MARK_LISTING | MARK_WATCH_END of its requests */
  bits: number;
  verb: string;
  userAgent: string;
  username: string;
  nodeName: string | null;
  resource: string;
  apiGroup: string;
  namespace: string;
  fieldSelector: string | null;
  labelSelector: string | null;
  /** the engine's ids of the two selectors, or -1 (ScanState's selector memo key) */
  fieldSelectorId: number;
  labelSelectorId: number;
  /** 0 absent or empty, 1 "0", 2 another value */
  rvClass: number;
  resourceVersionMatch: string | null;
  limited: boolean;
  continueToken: boolean;
  watch: boolean;
  sendInitialEvents: boolean;
  code: number | null;
  /** the requests are the apiserver log's httplog lines (read slots only): their flow schema keys the group, and
   * the group learns their priority level (empty: none) and, from the slot's PAIR_SRCIP pairs, source addresses */
  log: boolean;
  flowSchema: string;
  priorityLevel: string;
  requests: number;
  firstMs: number;
  lastMs: number;
  returnedN: number;
  returnedSum: number;
  returnedMax: number;
  /** the most objects a complete list of it returned (returned + remaining), -1: none */
  fullList: number;
  latencyN: number;
  latencyMin: number;
  latencyMax: number;
  sampleMs: number;
  sampleUri: string;
  client: number;
}

/** Per-bucket counts of the aggregator's pairs (slots.ts P_*): id (0, a client, a slot), kind, key, count. */
export const PAIR_ALL = 0;
export const PAIR_LISTS = 1;
export const PAIR_WATCH_END = 2;
export const PAIR_CLIENT = 3;
export const PAIR_CLIENT_LISTS = 4;
export const PAIR_READ = 5;
export const PAIR_LATENCY = 6;
/** the copy fingerprint's cells, per second: requests, and the sums of the IDs' two hashes */
export const PAIR_FP_N = 7;
export const PAIR_FP_H1 = 8;
export const PAIR_FP_H2 = 9;
/** an httplog read slot's source address: key = the address's string id */
export const PAIR_SRCIP = 10;

export interface SlotTables {
  slots: Slot[];
  /** client id → [user agent, user] */
  clients: Array<[string, string]>;
  pairs: { n: number; id: Uint32Array; kind: Uint32Array; key: Float64Array; count: Uint32Array };
}
