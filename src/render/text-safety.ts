/*! Strings from the log are attacker-controlled (user agents, usernames, URIs, etcd keys). Before anything is
 * printed: secrets-looking values are redacted, and terminal control characters (ESC/CSI/OSC, backspace, CR,
 * C1, bidi overrides) become visible escapes. Markdown and HTML escaping build on top of this. */

// Control characters a terminal acts on (C0, DEL, C1), Unicode bidi controls (Trojan Source, CVE-2021-42574:
// the Arabic letter mark, LRM/RLM, embeddings, overrides, isolates) and the line and paragraph separators, which
// break a report's line where none is.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The same characters minus C0, which JSON.stringify escapes itself: what renderJson writes as \uXXXX. */
export const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** JWTs (service-account and OIDC tokens), Bearer/Basic credentials, and token-like query values. */
const SECRET_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [/eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, '<redacted-jwt>'],
  [/\b(bearer|basic)(\s+|%20|\+)[A-Za-z0-9._~+/=-]{6,}/gi, '$1 <redacted>'],
  [/\b(token|access_token|id_token|password|passwd|secret|apikey|api_key)=([^&\s"]+)/gi, '$1=<redacted>'],
  [/\bsha256~[A-Za-z0-9_-]{20,}/g, 'sha256~<redacted>'],
];

/** Matches whenever one of SECRET_PATTERNS could (a superset, in one pass): most strings have none of these. */
const MAYBE_SECRET = /eyj|bearer|basic|token=|passw(?:or)?d=|secret=|api_?key=|sha256~/i;

/** Replaces secret-looking substrings. Applied to every string audit-scan prints, in every format. */
export function redactSecrets(s: string): string {
  if (!MAYBE_SECRET.test(s)) return s;
  let out = s;
  for (const [re, rep] of SECRET_PATTERNS) out = out.replace(re, rep);
  return out;
}

/** Makes a log string safe for a terminal: secrets redacted, control characters shown as \xNN or \uNNNN. */
export function safeText(s: string): string {
  return redactSecrets(s).replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0x9f ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Escapes a string for a Markdown table cell or inline text: shown as written, never as markup or a link. */
export function escapeMarkdown(s: string): string {
  return safeText(s).replace(/\S+/g, markdownToken);
}

function markdownToken(t: string): string {
  if (t.includes('@')) {
    // GitHub links e-mail addresses after parsing, escapes and entities notwithstanding (cmark-gfm#278); a code
    // span is never linked and copies as written. A token that cannot be one keeps its text with a fullwidth ＠.
    if (!/[`|]/.test(t)) return '`' + t + '`';
    t = t.replace(/@/g, '\uff20');
  }
  // & only where it would start an entity ("&lt;"): "resourceVersion=0&limit=500" stays readable as pasted
  return t
    .replace(/[\\`*_[\]<>|~]|&(?=#?[a-zA-Z0-9]+;)/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : `\\${c}`))
    .replace(/:\/\//g, '\\://') // http:// and friends are linked while parsing, which an escape stops
    .replace(/\bwww\./gi, (w) => `${w.slice(0, 3)}\\.`);
}

/** Escapes a string for HTML text or attribute values. */
export function escapeHtml(s: string): string {
  return safeText(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Cuts a string to `width` display columns with an ellipsis. */
export function truncate(s: string, width: number): string {
  if (width <= 0) return '';
  if (s.length <= width) return s;
  return s.slice(0, width - 1) + '…';
}

/** Deep-copies a JSON value with redactSecrets() applied to every string (the JSON output's guard). */
export function redactJson<T>(v: T): T {
  if (typeof v === 'string') return redactSecrets(v) as T;
  if (Array.isArray(v)) return v.map((x) => redactJson(x)) as T;
  if (v !== null && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[redactSecrets(k)] = redactJson(x);
    return o as T;
  }
  return v;
}
