/*! One CSV record (RFC 4180), for CloudWatch Logs Insights exports: fields separated by commas, a quoted field
 * may hold commas, newlines and "" for a quote. */

/** The fields of a record, or null when it ends inside a quoted field (the record goes on in the next line). */
export function parseCsvRecord(s: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    let v = '';
    if (s.charCodeAt(i) === 34 /* " */) {
      i++;
      for (;;) {
        const q = s.indexOf('"', i);
        if (q === -1) return null;
        v += s.slice(i, q);
        i = q + 1;
        if (s.charCodeAt(i) !== 34) break;
        v += '"';
        i++;
      }
    }
    // up to the next comma: an unquoted field, or text after a closing quote (kept with the field, as lenient
    // readers do)
    const c = s.indexOf(',', i);
    out.push(v + s.slice(i, c === -1 ? s.length : c));
    if (c === -1) return out;
    i = c + 1;
  }
}

/** The column of @message in a Logs Insights CSV header, or null when the line is not such a header. */
export function logsInsightsColumn(header: string): number | null {
  const h = header.trim(); // trim() takes a byte-order mark too
  if (!h.startsWith('@') && !h.startsWith('"@')) return null;
  const cols = parseCsvRecord(h);
  if (cols === null) return null;
  const i = cols.findIndex((c) => c.trim() === '@message');
  return i >= 0 && cols.every((c) => /^@?[\w.]+$/.test(c.trim())) ? i : null;
}
