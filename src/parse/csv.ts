/*! One CSV record (RFC 4180), for CloudWatch Logs Insights exports: fields separated by commas, a quoted field
 * may hold commas, newlines and "" for a quote. */

/** The fields of a record, or null when it ends inside a quoted field (the record goes on in the next line). */
export function parseCsvRecord(s: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  const n = s.length;
  for (;;) {
    if (i < n && s.charCodeAt(i) === 34 /* " */) {
      let v = '';
      i++;
      for (;;) {
        const q = s.indexOf('"', i);
        if (q < 0) return null;
        v += s.slice(i, q);
        if (s.charCodeAt(q + 1) === 34) {
          v += '"';
          i = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      out.push(v);
    } else {
      const c = s.indexOf(',', i);
      out.push(s.slice(i, c < 0 ? n : c));
      i = c < 0 ? n : c;
    }
    if (i >= n) return out;
    if (s.charCodeAt(i) !== 44 /* , */) {
      // text after a closing quote: keep it with the field, as lenient readers do
      const c = s.indexOf(',', i);
      out[out.length - 1] += s.slice(i, c < 0 ? n : c);
      i = c < 0 ? n : c;
      if (i >= n) return out;
    }
    i++; // the comma
  }
}

/** The column of @message in a Logs Insights CSV header, or null when the line is not such a header. */
export function logsInsightsColumn(header: string): number | null {
  const h = header.replace(/^\ufeff/, '').trim();
  if (!h.startsWith('@') && !h.startsWith('"@')) return null;
  const cols = parseCsvRecord(h);
  if (cols === null) return null;
  const i = cols.findIndex((c) => c.trim() === '@message');
  return i >= 0 && cols.every((c) => /^@?[\w.]+$/.test(c.trim())) ? i : null;
}
