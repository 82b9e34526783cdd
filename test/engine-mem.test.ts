// The byte hash and compare the engine's intern and dedup tables share (src/decode/engine/assembly/mem.ts), against
// a reference written the plain way: a key's last bytes are read as whole words (a word that ends the key, or one
// that starts it, masked), never a byte past it but where the module's memory allows, and give the hash a byte at
// a time gave. On both builds.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

interface MemExports {
  memory: WebAssembly.Memory;
  memHash(p: number, n: number): number;
  memEqual(a: number, b: number, n: number): number;
  dedupKey(n: number): number;
}

/** hashBytes() as it was written first: 8-byte words, then the rest a byte at a time. */
function referenceHash(b: Uint8Array): number {
  const M = (1n << 64n) - 1n;
  const n = b.length;
  let h = (0x9e3779b97f4a7c15n ^ BigInt(n)) & M;
  let i = 0;
  for (; i + 8 <= n; i += 8) {
    let w = 0n;
    for (let k = 0; k < 8; k++) w |= BigInt(b[i + k]!) << BigInt(8 * k);
    h = ((h ^ w) * 0xff51afd7ed558ccdn) & M;
    h ^= h >> 29n;
  }
  let t = 0n;
  for (let s = 0n; i < n; i++, s += 8n) t |= BigInt(b[i]!) << s;
  h = ((h ^ t) * 0xc4ceb9fe1a85ec53n) & M;
  h ^= h >> 32n;
  return Number(h & 0xffffffffn);
}

describe.each(['engine-simd.wasm', 'engine.wasm'])('%s: the tables’ byte hash and compare', (file) => {
  const x = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(join(ROOT, 'dist/decode/engine', file))), {}).exports as unknown as MemExports;
  const at = x.dedupKey(512);
  const bytes = (): Uint8Array => new Uint8Array(x.memory.buffer);
  const key = (n: number, seed: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (seed * 31 + i * 7 + 1) & 0xff);

  it('hashes keys of 0 to 40 bytes as a byte at a time did, with other bytes on either side', () => {
    for (let n = 0; n <= 40; n++) {
      const k = key(n, n);
      bytes().fill(0xaa, at, at + 512);
      bytes().set(k, at + 16);
      expect(x.memHash(at + 16, n) >>> 0, `${n} bytes`).toBe(referenceHash(k));
      // what follows the key is not hashed
      bytes().fill(0x55, at + 16 + n, at + 64 + n);
      expect(x.memHash(at + 16, n) >>> 0, `${n} bytes, others after`).toBe(referenceHash(k));
    }
  });

  it('hashes a short key that ends the module’s memory (no word past it to read)', () => {
    const end = x.memory.buffer.byteLength;
    for (let n = 0; n < 8; n++) {
      const k = key(n, 3);
      bytes().set(k, end - n);
      expect(x.memHash(end - n, n) >>> 0, `${n} bytes`).toBe(referenceHash(k));
    }
  });

  it('compares keys of 0 to 40 bytes: equal, and unequal at each byte; bytes past n do not count', () => {
    for (let n = 0; n <= 40; n++) {
      const k = key(n, 7);
      bytes().set(k, at);
      bytes().set(k, at + 256);
      bytes()[at + n] = 1;
      bytes()[at + 256 + n] = 2;
      expect(x.memEqual(at, at + 256, n), `${n} bytes equal`).toBe(1);
      for (let d = 0; d < n; d++) {
        bytes()[at + 256 + d] ^= 0x20;
        expect(x.memEqual(at, at + 256, n), `${n} bytes, byte ${d} differs`).toBe(0);
        bytes()[at + 256 + d] ^= 0x20;
      }
    }
  });
});
