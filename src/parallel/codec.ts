/*! A generic JSON codec for scan state crossing processes (partial results, issue 24): what structured clone
 * keeps between threads, written as explicit JSON. Maps, Sets, typed arrays, undefined in arrays, NaN and the
 * infinities get tagged objects ({"$map": [[k, v], …]}, {"$set": […]}); everything else is plain JSON. Class
 * instances lose their prototype, as with structured clone, so the reader revives them the way a worker's
 * snapshot is revived (ScanState.mergeSnapshot, reviveSeries). Generic on purpose: a field added to the state
 * travels without a line here. */

/** The tags this codec writes; a plain object whose only key is one of them is escaped with $obj. */
const TAGS = new Set(['$map', '$set', '$num', '$u', '$ta', '$date', '$big', '$obj']);

const TYPED: Record<string, new (a: ArrayLike<number>) => ArrayLike<number>> = {
  Float64Array, Float32Array, Int32Array, Uint32Array, Int16Array, Uint16Array, Int8Array, Uint8Array, Uint8ClampedArray,
};

/** `v` as a JSON string; throws on a cycle or a function (neither belongs in state that crosses processes). */
export function encodeState(v: unknown): string {
  return JSON.stringify(toJson(v, new Set()));
}

/** The value encodeState() wrote. */
export function decodeState<T = unknown>(text: string): T {
  return fromJson(JSON.parse(text)) as T;
}

/** `v` as plain JSON values (tags in place of Maps, Sets and numbers JSON lacks). */
export function toJson(v: unknown, seen: Set<object> = new Set()): unknown {
  switch (typeof v) {
    case 'number':
      return Number.isFinite(v) ? v : { $num: String(v) };
    case 'string':
    case 'boolean':
      return v;
    case 'undefined':
      return { $u: 1 };
    case 'bigint':
      return { $big: v.toString() };
    case 'function':
    case 'symbol':
      throw new Error(`encodeState: a ${typeof v} cannot cross processes`);
  }
  if (v === null) return null;
  const o = v as object;
  if (seen.has(o)) throw new Error('encodeState: a cycle');
  seen.add(o);
  try {
    if (Array.isArray(o)) return o.map((x) => toJson(x, seen));
    if (o instanceof Map) return { $map: [...o].map(([k, x]) => [toJson(k, seen), toJson(x, seen)]) };
    if (o instanceof Set) return { $set: [...o].map((x) => toJson(x, seen)) };
    if (o instanceof Date) return { $date: o.getTime() };
    if (ArrayBuffer.isView(o) && !(o instanceof DataView)) return { $ta: o.constructor.name, v: Array.from(o as unknown as ArrayLike<number>, (x) => toJson(x, seen)) };
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) {
      // A missing property and one set to undefined read the same everywhere in the state (`?? `, `=== undefined`).
      if (x === undefined) continue;
      out[k] = toJson(x, seen);
    }
    const keys = Object.keys(out);
    return keys.length === 1 && TAGS.has(keys[0]!) ? { $obj: out } : out;
  } finally {
    seen.delete(o);
  }
}

/** The values toJson() tagged, revived (Maps, Sets, typed arrays…); plain objects stay plain. */
export function fromJson(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(fromJson);
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 1 || (keys.length === 2 && '$ta' in o)) {
    if ('$map' in o) return new Map((o.$map as Array<[unknown, unknown]>).map(([k, x]) => [fromJson(k), fromJson(x)]));
    if ('$set' in o) return new Set((o.$set as unknown[]).map(fromJson));
    if ('$num' in o) return Number(o.$num);
    if ('$u' in o) return undefined;
    if ('$date' in o) return new Date(o.$date as number);
    if ('$big' in o) return BigInt(o.$big as string);
    if ('$obj' in o) return fromPlain(o.$obj as Record<string, unknown>);
    if ('$ta' in o) {
      const C = TYPED[o.$ta as string];
      if (C === undefined) throw new Error(`decodeState: unknown typed array ${String(o.$ta)}`);
      return new C((o.v as unknown[]).map(fromJson) as number[]);
    }
  }
  return fromPlain(o);
}

function fromPlain(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) out[k] = fromJson(o[k]);
  return out;
}
