// The module's memory: a bump allocator over the linear memory (nothing is freed; dedup.ts keeps its own free
// lists), and the byte hash and compare the intern table and the dedup table share.

let heapTop: usize = 0;

export function heapReset(): void {
  heapTop = __heap_base;
}

export function grow(bytes: usize): usize {
  const at = (heapTop + 15) & ~(<usize>15);
  const end = at + bytes;
  const have = (<usize>memory.size()) << 16;
  if (end > have) {
    const pages = <i32>((end - have + 0xffff) >> 16);
    if (memory.grow(pages) < 0) unreachable();
  }
  heapTop = end;
  return at;
}

@inline export function hashBytes(p: usize, n: u32): u32 {
  let h: u64 = 0x9e3779b97f4a7c15 ^ (<u64>n);
  let i: u32 = 0;
  while (i + 8 <= n) {
    h = (h ^ load<u64>(p + i)) * 0xff51afd7ed558ccd;
    h ^= h >> 29;
    i += 8;
  }
  // the last n - i bytes (0 to 7), little-endian, as one word: the 8 bytes that end the key shifted down, or for a
  // key under 8 bytes the 8 from its start masked (when memory goes that far), else a byte at a time
  let t: u64 = 0;
  const r = n - i;
  if (r != 0) {
    if (n >= 8) t = load<u64>(p + n - 8) >> (<u64>(8 - r) << 3);
    else if (p + 8 <= (<usize>memory.size()) << 16) t = load<u64>(p) & ((<u64>1 << (<u64>r << 3)) - 1);
    else {
      let s: u64 = 0;
      while (i < n) {
        t |= (<u64>load<u8>(p + i)) << s;
        s += 8;
        i++;
      }
    }
  }
  h = (h ^ t) * 0xc4ceb9fe1a85ec53;
  h ^= h >> 32;
  return <u32>h;
}

export function bytesEqual(a: usize, b: usize, n: u32): bool {
  if (ASC_FEATURE_SIMD) {
    // whole words, the last one overlapping the one before it: no byte loop, no byte read past n
    if (n >= 16) {
      let i: u32 = 0;
      while (i + 16 <= n) {
        if (!i8x16.all_true(i8x16.eq(v128.load(a + i), v128.load(b + i)))) return false;
        i += 16;
      }
      return i == n || i8x16.all_true(i8x16.eq(v128.load(a + n - 16), v128.load(b + n - 16)));
    }
    if (n >= 8) return load<u64>(a) == load<u64>(b) && load<u64>(a + n - 8) == load<u64>(b + n - 8);
    if (n >= 4) return load<u32>(a) == load<u32>(b) && load<u32>(a + n - 4) == load<u32>(b + n - 4);
    for (let i: u32 = 0; i < n; i++) if (load<u8>(a + i) != load<u8>(b + i)) return false;
    return true;
  }
  return memory.compare(a, b, n) == 0;
}
