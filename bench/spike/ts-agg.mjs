// Issue 26 spike, variant B: the per-line aggregator in JavaScript on typed arrays (no Map, no string, no object
// per line), reading the engine's records from its memory right after each scan().
//
// Same semantics as bench/spike/engine-agg.ts, bit for bit (same hashes, same table layouts, same growth, same
// checksums): keep the two in step. See the top of engine-agg.ts for what is counted and the spike's
// simplification (non-terminal stages are ignored).

// Record fields (i32 slots), copied from src/decode/engine/assembly/engine.ts: keep in step.
const R_STATUS = 0;
const R_STAGE = 3;
const R_VERB = 4;
const R_USER = 6;
const R_UA = 7;
const R_RESOURCE = 9;
const R_GROUP = 10;
const R_NS = 11;
const R_ID_P = 15;
const R_ID_L = 16;
const R_CODE = 19;
const R_RV_CLASS = 20;
const R_LIMIT = 24;
const R_FSEL = 26;
const R_LSEL = 27;
const O_RECEIVED = 128;

const RING_N = 65536;
const SET_N = 131072;
const SET_MASK = SET_N - 1;
const KEY_WORDS = 8;

// ---- hashing (identical in engine-agg.ts; int32 arithmetic) ----------------------------------------------

function fmix(h) {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}
function step1(a, w) {
  return Math.imul(((a << 5) | (a >>> 27)) ^ w, 0x9e3779b1);
}
function step2(b, w) {
  return Math.imul(((b << 7) | (b >>> 25)) ^ w, 0x85ebca77);
}
function bucketHome(g, sec) {
  return fmix(Math.imul(g, 0x9e3779b1) ^ sec);
}

export class TsAgg {
  /** @param x the engine instance's exports (memory, outPtr, scratchPtr, REC_BYTES) */
  constructor(x) {
    this.memory = x.memory;
    this.out = x.outPtr();
    this.scratch = x.scratchPtr();
    this.recWords = (x.REC_BYTES.value >>> 0) >> 2;
    this.buf = null;
    this.i32 = null;
    this.f64 = null;
    this.dv = null;
    this.refresh();
    // the hash of the last ID (two lanes)
    this.idH1 = 0;
    this.idH2 = 0;
    this.reset();
  }

  refresh() {
    if (this.memory.buffer === this.buf) return;
    this.buf = this.memory.buffer;
    this.i32 = new Int32Array(this.buf);
    this.f64 = new Float64Array(this.buf);
    this.dv = new DataView(this.buf);
  }

  reset() {
    this.ring = new Int32Array(RING_N * 2); // (h1, h2); h2 == 0: empty
    this.set = new Int32Array(SET_N * 2); // (h1, h2); h2 == 0: empty; home h1 & SET_MASK
    this.ringPos = 0;
    this.nGroups = 0;
    this.groupsAlloc(512);
    this.bt = new Int32Array(65536 * 4); // (gi + 1, sec, count, 0)
    this.bmask = 65535;
    this.nBuckets = 0;
    this.st = new Int32Array(4096 * 2); // (sec, count); count == 0: empty
    this.smask = 4095;
    this.nSeconds = 0;
    this.lastSec = 0;
    this.lastSecSlot = -1;
    this.vc = new Int32Array(64);
    this.requests = 0;
    this.duplicates = 0;
    this.nonTerminal = 0;
    this.missingId = 0;
    this.untimed = 0;
    this.declined = 0;
  }

  groupsAlloc(cap) {
    this.capG = cap;
    this.gmask = cap * 2 - 1;
    this.gt = new Int32Array(cap * 2 * 2); // (hash, gi + 1)
    this.gk = new Int32Array(cap * KEY_WORDS);
    this.gc = new Int32Array(cap);
    this.gh = new Int32Array(cap);
    this.gf = new Float64Array(cap);
    this.gl = new Float64Array(cap);
  }

  groupsGrow() {
    const { gk, gc, gh, gf, gl } = this;
    const n = this.nGroups;
    this.groupsAlloc(this.capG * 2);
    this.gk.set(gk.subarray(0, n * KEY_WORDS));
    this.gc.set(gc.subarray(0, n));
    this.gh.set(gh.subarray(0, n));
    this.gf.set(gf.subarray(0, n));
    this.gl.set(gl.subarray(0, n));
    const gt = this.gt;
    const mask = this.gmask;
    for (let g = 0; g < n; g++) {
      const h = gh[g];
      let j = h & mask;
      while (gt[2 * j + 1] !== 0) j = (j + 1) & mask;
      gt[2 * j] = h;
      gt[2 * j + 1] = g + 1;
    }
  }

  bucketsGrow() {
    const old = this.bt;
    const oldN = this.bmask + 1;
    const n = oldN * 2;
    const bt = new Int32Array(n * 4);
    const mask = n - 1;
    for (let i = 0; i < oldN; i++) {
      const g1 = old[4 * i];
      if (g1 === 0) continue;
      let j = bucketHome(g1 - 1, old[4 * i + 1]) & mask;
      while (bt[4 * j] !== 0) j = (j + 1) & mask;
      bt[4 * j] = g1;
      bt[4 * j + 1] = old[4 * i + 1];
      bt[4 * j + 2] = old[4 * i + 2];
    }
    this.bt = bt;
    this.bmask = mask;
  }

  secondsGrow() {
    const old = this.st;
    const oldN = this.smask + 1;
    const n = oldN * 2;
    const st = new Int32Array(n * 2);
    const mask = n - 1;
    for (let i = 0; i < oldN; i++) {
      if (old[2 * i + 1] === 0) continue;
      let j = fmix(old[2 * i]) & mask;
      while (st[2 * j + 1] !== 0) j = (j + 1) & mask;
      st[2 * j] = old[2 * i];
      st[2 * j + 1] = old[2 * i + 1];
    }
    this.st = st;
    this.smask = mask;
    this.lastSecSlot = -1;
  }

  verbsGrow(id) {
    let n = this.vc.length;
    while (n <= id) n *= 2;
    const v = new Int32Array(n);
    v.set(this.vc);
    this.vc = v;
  }

  /** The auditID's hash at byte p of the memory, n bytes: into idH1, idH2 (as hashId in engine-agg.ts). */
  hashId(p, n) {
    const dv = this.dv;
    let a = 0x9e3779b9 ^ n;
    let b = 0x7f4a7c15 ^ n;
    let i = 0;
    for (; i + 4 <= n; i += 4) {
      const w = dv.getInt32(p + i, true);
      a = step1(a, w);
      b = step2(b, w);
    }
    if (i < n) {
      const w = dv.getInt32(p + i, true) & ((1 << ((n - i) << 3)) - 1);
      a = step1(a, w);
      b = step2(b, w);
    }
    this.idH1 = fmix(a ^ ((b << 16) | (b >>> 16)));
    this.idH2 = fmix((b + a) | 0) | 1;
  }

  /** Removes the dedup set's slot i (backward-shift deletion). */
  setDelete(i) {
    const set = this.set;
    let j = i;
    for (;;) {
      j = (j + 1) & SET_MASK;
      if (set[2 * j + 1] === 0) break;
      const k = set[2 * j] & SET_MASK;
      if (i <= j ? i < k && k <= j : i < k || k <= j) continue;
      set[2 * i] = set[2 * j];
      set[2 * i + 1] = set[2 * j + 1];
      i = j;
    }
    set[2 * i] = 0;
    set[2 * i + 1] = 0;
  }

  /** Forgets the ring's oldest ID and puts (h1, h2) in its place (h2 0: no ID); true when one was forgotten. */
  ringPush(h1, h2) {
    const ring = this.ring;
    const set = this.set;
    const r = this.ringPos;
    const o2 = ring[2 * r + 1];
    let evicted = false;
    if (o2 !== 0) {
      const o1 = ring[2 * r];
      let j = o1 & SET_MASK;
      for (;;) {
        const b = set[2 * j + 1];
        if (b === 0) break;
        if (b === o2 && set[2 * j] === o1) {
          this.setDelete(j);
          evicted = true;
          break;
        }
        j = (j + 1) & SET_MASK;
      }
    }
    ring[2 * r] = h1;
    ring[2 * r + 1] = h2;
    this.ringPos = (r + 1) & (RING_N - 1);
    return evicted;
  }

  /** Aggregates the n records the last scan() wrote. */
  records(n) {
    this.refresh();
    const i32 = this.i32;
    const f64 = this.f64;
    const set = this.set;
    const W = this.recWords;
    const base = this.out >> 2;
    const scratch = this.scratch;
    for (let i = 0; i < n; i++) {
      const r = base + i * W;
      if (i32[r + R_STATUS] !== 1) {
        this.declined++;
        continue;
      }
      if (i32[r + R_STAGE] < 2) {
        this.nonTerminal++; // the spike's simplification: see engine-agg.ts
        continue;
      }
      // dedup
      const idp = i32[r + R_ID_P];
      if (idp < 0) {
        this.missingId++;
        this.ringPush(0, 0);
      } else {
        this.hashId(scratch + idp, i32[r + R_ID_L]);
        const h1 = this.idH1;
        const h2 = this.idH2;
        let j = h1 & SET_MASK;
        let dup = false;
        for (;;) {
          const b = set[2 * j + 1];
          if (b === 0) break;
          if (b === h2 && set[2 * j] === h1) {
            dup = true;
            break;
          }
          j = (j + 1) & SET_MASK;
        }
        if (dup) {
          this.duplicates++;
          continue;
        }
        if (this.ringPush(h1, h2)) {
          j = h1 & SET_MASK;
          while (set[2 * j + 1] !== 0) j = (j + 1) & SET_MASK;
        }
        set[2 * j] = h1;
        set[2 * j + 1] = h2;
      }
      // the request
      this.requests++;
      const verb = i32[r + R_VERB];
      if (verb >= 0) {
        if (verb >= this.vc.length) this.verbsGrow(verb);
        this.vc[verb]++;
      }
      const code = i32[r + R_CODE];
      const cc = code < 0 ? 0 : code >= 200 && code < 300 ? 1 : code >= 400 && code < 500 ? 2 : code >= 500 && code < 600 ? 3 : 4;
      const k0 = verb;
      const k1 = i32[r + R_UA];
      const k2 = i32[r + R_USER];
      const k3 = i32[r + R_RESOURCE];
      const k4 = i32[r + R_GROUP];
      const k5 = i32[r + R_FSEL];
      const k6 = i32[r + R_LSEL];
      const k7 = (i32[r + R_NS] >= 0 ? 1 : 0) | ((i32[r + R_RV_CLASS] & 3) << 1) | (i32[r + R_LIMIT] > 0 ? 8 : 0) | (cc << 4);
      let h = 0x2545f491;
      h = step1(h, k0);
      h = step1(h, k1);
      h = step1(h, k2);
      h = step1(h, k3);
      h = step1(h, k4);
      h = step1(h, k5);
      h = step1(h, k6);
      h = step1(h, k7);
      h = fmix(h);
      const gt = this.gt;
      const gmask = this.gmask;
      let j = h & gmask;
      let g = 0;
      for (;;) {
        const g1 = gt[2 * j + 1];
        if (g1 === 0) {
          g = this.nGroups++;
          const gk = this.gk;
          const kp = g * KEY_WORDS;
          gk[kp] = k0;
          gk[kp + 1] = k1;
          gk[kp + 2] = k2;
          gk[kp + 3] = k3;
          gk[kp + 4] = k4;
          gk[kp + 5] = k5;
          gk[kp + 6] = k6;
          gk[kp + 7] = k7;
          this.gc[g] = 0;
          this.gh[g] = h;
          this.gf[g] = Infinity;
          this.gl[g] = -Infinity;
          gt[2 * j] = h;
          gt[2 * j + 1] = g + 1;
          if (this.nGroups === this.capG) this.groupsGrow();
          break;
        }
        if (gt[2 * j] === h) {
          const gk = this.gk;
          const kp = (g1 - 1) * KEY_WORDS;
          if (gk[kp] === k0 && gk[kp + 1] === k1 && gk[kp + 2] === k2 && gk[kp + 3] === k3 && gk[kp + 4] === k4 && gk[kp + 5] === k5 && gk[kp + 6] === k6 && gk[kp + 7] === k7) {
            g = g1 - 1;
            break;
          }
        }
        j = (j + 1) & gmask;
      }
      this.gc[g]++;
      // times
      const t = f64[((r << 2) + O_RECEIVED) >> 3];
      if (!(t >= 0 && t < 4294967296000.0)) {
        this.untimed++;
        continue;
      }
      const gf = this.gf;
      const gl = this.gl;
      if (t < gf[g]) gf[g] = t;
      if (t > gl[g]) gl[g] = t;
      const sec = Math.floor(t / 1000) | 0; // as u32 bits (epoch seconds < 2^32)
      // (group, second)
      const bt = this.bt;
      const bmask = this.bmask;
      let b = bucketHome(g, sec) & bmask;
      for (;;) {
        const g1 = bt[4 * b];
        if (g1 === 0) {
          bt[4 * b] = g + 1;
          bt[4 * b + 1] = sec;
          bt[4 * b + 2] = 1;
          this.nBuckets++;
          if (this.nBuckets * 2 > bmask + 1) this.bucketsGrow();
          break;
        }
        if (g1 === g + 1 && bt[4 * b + 1] === sec) {
          bt[4 * b + 2]++;
          break;
        }
        b = (b + 1) & bmask;
      }
      // second
      if (this.lastSecSlot >= 0 && sec === this.lastSec) {
        this.st[2 * this.lastSecSlot + 1]++;
      } else {
        let st = this.st;
        let smask = this.smask;
        let q = fmix(sec) & smask;
        for (;;) {
          const c = st[2 * q + 1];
          if (c === 0) {
            st[2 * q] = sec;
            st[2 * q + 1] = 1;
            this.nSeconds++;
            if (this.nSeconds * 2 > smask + 1) {
              this.secondsGrow();
              st = this.st;
              smask = this.smask;
              q = fmix(sec) & smask;
              while (st[2 * q] !== sec || st[2 * q + 1] === 0) q = (q + 1) & smask;
            }
            break;
          }
          if (st[2 * q] === sec) {
            st[2 * q + 1] = c + 1;
            break;
          }
          q = (q + 1) & smask;
        }
        this.lastSec = sec;
        this.lastSecSlot = q;
      }
    }
  }

  /** The checksums (as aggFinish() in engine-agg.ts): 10 u32 words. */
  checksums() {
    const cs = new Uint32Array(10);
    const add = (k, e) => {
      cs[k] = (cs[k] + (e >>> 0)) >>> 0;
      cs[k + 1] ^= fmix((e + 0x6b43a9b5) | 0);
    };
    const u32pair = (x) => {
      const hi = Math.floor(x / 4294967296);
      return [(x - hi * 4294967296) | 0, hi | 0];
    };
    for (let g = 0; g < this.nGroups; g++) {
      const h = this.gh[g];
      add(0, fmix(h ^ Math.imul(this.gc[g], 0x9e3779b1)));
      const f = this.gf[g];
      const l = this.gl[g];
      let [f0, f1, l0, l1] = [0, 0, 0, 0];
      if (f <= l) {
        [f0, f1] = u32pair(Math.floor(f * 1000));
        [l0, l1] = u32pair(Math.floor(l * 1000));
      }
      add(2, fmix(h ^ fmix(f0 ^ fmix(f1 ^ fmix(l0 ^ fmix(l1))))));
    }
    for (let i = 0; i <= this.bmask; i++) {
      const g1 = this.bt[4 * i];
      if (g1 === 0) continue;
      add(4, fmix(fmix(this.gh[g1 - 1] ^ this.bt[4 * i + 1]) ^ Math.imul(this.bt[4 * i + 2], 0x85ebca77)));
    }
    for (let i = 0; i <= this.smask; i++) {
      const c = this.st[2 * i + 1];
      if (c === 0) continue;
      add(6, fmix(fmix(this.st[2 * i] ^ 0x27d4eb2f) ^ Math.imul(c, 0x9e3779b1)));
    }
    for (let v = 0; v < this.vc.length; v++) {
      const c = this.vc[v];
      if (c === 0) continue;
      add(8, fmix(fmix(v) ^ Math.imul(c, 0x9e3779b1)));
    }
    return cs;
  }

  /** The same summary as wasmResult() in run.mjs builds from the WebAssembly aggregator. */
  result() {
    const verbs = [];
    for (let v = 0; v < this.vc.length; v++) if (this.vc[v] !== 0) verbs.push([v, this.vc[v]]);
    return {
      groups: this.nGroups,
      requests: this.requests,
      duplicates: this.duplicates,
      nonTerminal: this.nonTerminal,
      missingId: this.missingId,
      untimed: this.untimed,
      buckets: this.nBuckets,
      seconds: this.nSeconds,
      declined: this.declined,
      verbs,
      checksums: [...this.checksums()].map((w) => w.toString(16).padStart(8, '0')),
    };
  }
}
