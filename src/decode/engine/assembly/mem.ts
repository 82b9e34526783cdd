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
  let t: u64 = 0;
  let s: u64 = 0;
  while (i < n) {
    t |= (<u64>load<u8>(p + i)) << s;
    s += 8;
    i++;
  }
  h = (h ^ t) * 0xc4ceb9fe1a85ec53;
  h ^= h >> 32;
  return <u32>h;
}

export function bytesEqual(a: usize, b: usize, n: u32): bool {
  if (ASC_FEATURE_SIMD) {
    let i: u32 = 0;
    while (i + 16 <= n) {
      if (!i8x16.all_true(i8x16.eq(v128.load(a + i), v128.load(b + i)))) return false;
      i += 16;
    }
    while (i < n) {
      if (load<u8>(a + i) != load<u8>(b + i)) return false;
      i++;
    }
    return true;
  }
  return memory.compare(a, b, n) == 0;
}
