/*! Time values in logs: RFC 3339 timestamps (audit, zap), Go durations ("130.768157ms", "1m0.5s"). */

const OFFSET_NO_COLON = /([+-])(\d{2})(\d{2})$/;

// One-entry cache of the whole-second part: logs are in time order, so most lookups hit, and Date.parse
// (about 6% of a scan's CPU when called for every event) runs once per second of log.
let cachedSecond = '';
let cachedSecondMs = 0;

/** RFC 3339 (any number of fractional digits, "Z" or ±hh:mm or ±hhmm) → epoch ms, or null. */
export function parseTimestampMs(s: unknown): number | null {
  if (typeof s === 'number') return Number.isFinite(s) ? (s > 1e12 ? s : s * 1000) : null;
  if (typeof s !== 'string' || s.length < 10) return null;
  const n = s.length;
  if (n >= 20 && s.charCodeAt(n - 1) === 90 /* Z */ && s.charCodeAt(10) === 84 /* T */ && (s.charCodeAt(19) === 46 || n === 20)) {
    const sec = s.slice(0, 19);
    if (sec !== cachedSecond) {
      const base = Date.parse(sec + 'Z');
      if (Number.isNaN(base)) return null;
      cachedSecond = sec;
      cachedSecondMs = base;
    }
    let frac = 0;
    if (n > 21) {
      // milliseconds from the first three fractional digits
      let scale = 100;
      for (let i = 20; i < n - 1 && scale >= 1; i++, scale /= 10) {
        const d = s.charCodeAt(i) - 48;
        if (d < 0 || d > 9) return null;
        frac += d * scale;
      }
    }
    return cachedSecondMs + frac;
  }
  let t = s;
  // zap's "2006-01-02T15:04:05.999999Z0700" writes +0800; Date.parse wants +08:00.
  if (t.charCodeAt(t.length - 5) === 43 || t.charCodeAt(t.length - 5) === 45) t = t.replace(OFFSET_NO_COLON, '$1$2:$3');
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? null : ms;
}

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000 };

/** Go time.Duration.String() → milliseconds, or null. */
export function parseGoDurationMs(s: unknown): number | null {
  if (typeof s === 'number') return Number.isFinite(s) ? s * 1000 : null;
  if (typeof s !== 'string' || s.length === 0) return null;
  if (s === '0' || s === '0s') return 0;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|μs|ms|s|m|h)/g;
  let total = 0;
  let consumed = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    if (m.index !== consumed) return null;
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    consumed = re.lastIndex;
  }
  return consumed === s.length && consumed > 0 ? total : null;
}

/** Epoch ms → "2026-01-02T03:04:05.678Z". */
export function formatTimestamp(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
