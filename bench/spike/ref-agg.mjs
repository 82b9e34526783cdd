// Issue 26 spike: a plain reference for the correctness check only (never timed). Maps, Sets and strings, as
// ScanState does: the auditID as a string in a Set plus a ring of the last 65,536 terminal IDs, the group key as a
// string. It gives the same summary as ts-agg.mjs and engine-agg.ts (the checksums use the same per-entry hashes,
// computed from the key words), so it checks their hash tables independently. It also counts the requests seen
// only at a non-terminal stage (whole file), which the spike leaves out and the CLI counts.

const RING_N = 65536;

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

export class RefAgg {
  constructor(x) {
    this.x = x;
    this.reset();
  }

  reset() {
    this.recent = new Set();
    this.ring = new Array(RING_N);
    this.ringPos = 0;
    this.groups = new Map(); // key string → { words, hash, count, first, last }
    this.buckets = new Map(); // key string + '|' + sec → count
    this.seconds = new Map();
    this.verbs = new Map();
    this.terminalIds = new Set();
    this.earlyIds = new Set();
    this.noId = 0;
    this.c = { requests: 0, duplicates: 0, nonTerminal: 0, missingId: 0, untimed: 0, declined: 0 };
  }

  records(n) {
    const x = this.x;
    const buf = x.memory.buffer;
    const i32 = new Int32Array(buf);
    const f64 = new Float64Array(buf);
    const bytes = Buffer.from(buf);
    const W = (x.REC_BYTES.value >>> 0) >> 2;
    const out = x.outPtr();
    const scratch = x.scratchPtr();
    for (let i = 0; i < n; i++) {
      const r = (out >> 2) + i * W;
      if (i32[r] !== 1) {
        this.c.declined++;
        continue;
      }
      const idp = i32[r + 15];
      const id = idp < 0 ? `\u0000no-id-${this.noId++}` : bytes.toString('latin1', scratch + idp, scratch + idp + i32[r + 16]);
      if (i32[r + 3] < 2) {
        this.c.nonTerminal++;
        if (!this.terminalIds.has(id)) this.earlyIds.add(id);
        continue;
      }
      this.terminalIds.add(id);
      this.earlyIds.delete(id);
      if (idp < 0) this.c.missingId++;
      if (this.recent.has(id)) {
        this.c.duplicates++;
        continue;
      }
      const old = this.ring[this.ringPos];
      if (old !== undefined) this.recent.delete(old);
      this.ring[this.ringPos] = id;
      this.ringPos = (this.ringPos + 1) % RING_N;
      this.recent.add(id);
      this.c.requests++;
      const verb = i32[r + 4];
      if (verb >= 0) this.verbs.set(verb, (this.verbs.get(verb) ?? 0) + 1);
      const code = i32[r + 19];
      const cc = code < 0 ? 0 : code >= 200 && code < 300 ? 1 : code >= 400 && code < 500 ? 2 : code >= 500 && code < 600 ? 3 : 4;
      const words = [verb, i32[r + 7], i32[r + 6], i32[r + 9], i32[r + 10], i32[r + 26], i32[r + 27], (i32[r + 11] >= 0 ? 1 : 0) | ((i32[r + 20] & 3) << 1) | (i32[r + 24] > 0 ? 8 : 0) | (cc << 4)];
      const key = words.join(',');
      let g = this.groups.get(key);
      if (g === undefined) {
        let h = 0x2545f491;
        for (const w of words) h = step1(h, w);
        this.groups.set(key, (g = { words, hash: fmix(h), count: 0, first: Infinity, last: -Infinity }));
      }
      g.count++;
      const t = f64[(r * 4 + 128) / 8];
      if (!(t >= 0 && t < 4294967296000)) {
        this.c.untimed++;
        continue;
      }
      g.first = Math.min(g.first, t);
      g.last = Math.max(g.last, t);
      const sec = Math.floor(t / 1000);
      const bk = `${key}|${sec}`;
      this.buckets.set(bk, (this.buckets.get(bk) ?? 0) + 1);
      this.seconds.set(sec, (this.seconds.get(sec) ?? 0) + 1);
    }
  }

  result() {
    const cs = new Uint32Array(10);
    const add = (k, e) => {
      cs[k] = (cs[k] + (e >>> 0)) >>> 0;
      cs[k + 1] ^= fmix((e + 0x6b43a9b5) | 0);
    };
    const pair = (x) => {
      const hi = Math.floor(x / 4294967296);
      return [(x - hi * 4294967296) | 0, hi | 0];
    };
    for (const g of this.groups.values()) {
      add(0, fmix(g.hash ^ Math.imul(g.count, 0x9e3779b1)));
      let [f0, f1, l0, l1] = [0, 0, 0, 0];
      if (g.first <= g.last) {
        [f0, f1] = pair(Math.floor(g.first * 1000));
        [l0, l1] = pair(Math.floor(g.last * 1000));
      }
      add(2, fmix(g.hash ^ fmix(f0 ^ fmix(f1 ^ fmix(l0 ^ fmix(l1))))));
    }
    for (const [bk, c] of this.buckets) {
      const bar = bk.lastIndexOf('|');
      const g = this.groups.get(bk.slice(0, bar));
      add(4, fmix(fmix(g.hash ^ (Number(bk.slice(bar + 1)) | 0)) ^ Math.imul(c, 0x85ebca77)));
    }
    for (const [sec, c] of this.seconds) add(6, fmix(fmix((sec | 0) ^ 0x27d4eb2f) ^ Math.imul(c, 0x9e3779b1)));
    for (const [v, c] of this.verbs) add(8, fmix(fmix(v) ^ Math.imul(c, 0x9e3779b1)));
    return {
      groups: this.groups.size,
      ...this.c,
      buckets: this.buckets.size,
      seconds: this.seconds.size,
      verbs: [...this.verbs].sort((a, b) => a[0] - b[0]),
      checksums: [...cs].map((w) => w.toString(16).padStart(8, '0')),
      // not in the other two: requests seen only at a non-terminal stage (the CLI counts them)
      nonTerminalOnly: this.earlyIds.size,
    };
  }
}
