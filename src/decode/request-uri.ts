/*! requestURI → { group, version, resource, namespace, name, subresource } plus the list query.
 * Mirrors k8s.io/apiserver RequestInfoFactory (requestinfo.go) for the path, and url.Values for the query. */

import type { ListQuery } from '../model/audit-event.js';

/** The parts of a Kubernetes API path, as RequestInfo computes them. */
export interface ApiPath {
  isResourceRequest: boolean;
  apiGroup: string; // "" for the core group
  apiVersion: string;
  resource: string;
  namespace: string;
  name: string;
  subresource: string;
  /** true for the legacy /api/v1/watch/... prefix */
  isLegacyWatch: boolean;
}

/** The query parameters that decide where a read is served from: part of the request record (model/audit-event.ts). */
export type { ListQuery };

export interface ParsedRequestUri {
  path: ApiPath;
  query: ListQuery;
  /** true when a %-escape in the query was malformed (the raw text was kept) */
  badEscape: boolean;
}

const EMPTY_PATH: ApiPath = Object.freeze({
  isResourceRequest: false,
  apiGroup: '',
  apiVersion: '',
  resource: '',
  namespace: '',
  name: '',
  subresource: '',
  isLegacyWatch: false,
});

/** Decodes one query component like Go's url.QueryUnescape: '+' is a space, %XX a byte. */
export function decodeQueryComponent(s: string): { value: string; ok: boolean } {
  // Stryker disable next-line ConditionalExpression,StringLiteral: a shortcut; decoding a plain string gives it back
  if (s.indexOf('%') < 0 && s.indexOf('+') < 0) return { value: s, ok: true };
  const plus = s.replace(/\+/g, ' ');
  try {
    return { value: decodeURIComponent(plus), ok: true };
  } catch {
    // Malformed escapes (e.g. "%zz" from a hand-written client): decode what we can.
    return { value: plus.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))), ok: false };
  }
}

/** Parses the query string (without '?') into the fields that matter for serving decisions. */
export function parseListQuery(qs: string): { query: ListQuery; badEscape: boolean } {
  const query: ListQuery = {
    fieldSelector: null,
    labelSelector: null,
    resourceVersion: null,
    resourceVersionMatch: null,
    limit: 0,
    continueToken: false,
    watch: false,
    sendInitialEvents: false,
  };
  let badEscape = false;
  let seen = 0;
  const n = qs.length;
  // One pass with indexOf, no split() array; components are decoded only when the query has a '%' or '+' at
  // all (most have none) and then only those that hold one.
  // Stryker disable next-line ConditionalExpression,StringLiteral: a shortcut; decoding plain components gives them back
  const esc = qs.indexOf('%') >= 0 || qs.indexOf('+') >= 0;
  let start = 0;
  // Stryker disable next-line EqualityOperator: a round at start = n finds no component
  while (start < n) {
    let amp = qs.indexOf('&', start);
    if (amp < 0) amp = n;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty component has the empty key, which no parameter is
    if (amp > start) {
      let eq = qs.indexOf('=', start);
      // Stryker disable next-line EqualityOperator: '=' and '&' are never at one index
      if (eq > amp) eq = -1;
      // Stryker disable next-line EqualityOperator: eq = 0 only for a query that starts with '=': its key is no parameter either way
      let key = qs.slice(start, eq < 0 ? amp : eq);
      // Stryker disable next-line EqualityOperator: as above
      let value = eq < 0 ? '' : qs.slice(eq + 1, amp);
      // Stryker disable next-line ConditionalExpression,LogicalOperator: decoding a plain component gives it back
      if (esc && needsDecode(key)) {
        const k = decodeQueryComponent(key);
        key = k.value;
        if (!k.ok) badEscape = true;
      }
      // Stryker disable next-line ConditionalExpression,LogicalOperator: as above
      if (esc && needsDecode(value)) {
        const v = decodeQueryComponent(value);
        value = v.value;
        if (!v.ok) badEscape = true;
      }
      seen = applyParam(query, key, value, seen);
    }
    start = amp + 1;
  }
  return { query, badEscape };
}

function needsDecode(s: string): boolean {
  // Stryker disable next-line ConditionalExpression,StringLiteral: deciding to decode a plain component gives it back
  return s.indexOf('%') >= 0 || s.indexOf('+') >= 0;
}

const WATCH = 1;
const SIE = 2;

function isTrueParam(v: string): boolean {
  return v !== '0' && v.toLowerCase() !== 'false';
}

/** One decoded parameter. Like url.Values.Get, the first occurrence wins (`seen` marks the boolean ones met). */
function applyParam(query: ListQuery, key: string, value: string, seen: number): number {
  switch (key) {
    case 'fieldSelector':
      if (query.fieldSelector === null) query.fieldSelector = value;
      break;
    case 'labelSelector':
      if (query.labelSelector === null) query.labelSelector = value;
      break;
    case 'resourceVersion':
      if (query.resourceVersion === null) query.resourceVersion = value;
      break;
    case 'resourceVersionMatch':
      if (query.resourceVersionMatch === null) query.resourceVersionMatch = value;
      break;
    case 'limit': {
      const n = Number.parseInt(value, 10);
      // Stryker disable next-line EqualityOperator: setting a limit of 0 over a limit of 0 changes nothing
      if (query.limit === 0 && Number.isFinite(n) && n > 0) query.limit = n;
      break;
    }
    case 'continue':
      if (value.length > 0) query.continueToken = true;
      break;
    case 'shardSelector':
      if (query.shardSelector === undefined) query.shardSelector = value;
      break;
    // Boolean parameters decode as apimachinery's Convert_Slice_string_To_bool does (runtime/conversion.go, used by
    // RequestInfo and ListOptions): false only for "0" or "false" in any case; anything else, "" included, is true.
    case 'watch':
      if ((seen & WATCH) === 0) query.watch = isTrueParam(value);
      return seen | WATCH;
    case 'sendInitialEvents':
      if ((seen & SIE) === 0) query.sendInitialEvents = isTrueParam(value);
      return seen | SIE;
  }
  return seen;
}

// Path segments: RequestInfoFactory treats /api as the core group prefix and /apis as named groups.
function parsePath(path: string): ApiPath {
  // Empty segments go, so a path without its leading slash (the Stackdriver bridge's "core/v1/namespaces/…")
  // reads as with it.
  const segs = path.split('/').filter((s) => s.length > 0);
  let i = 0;
  let apiGroup = '';
  let apiVersion = '';
  // (a path too short for its prefix leaves no resource segment, below: not a resource request)
  if (segs[0] === 'api') {
    apiVersion = segs[1] ?? '';
    i = 2;
  } else if (segs[0] === 'apis') {
    apiGroup = segs[1] ?? '';
    apiVersion = segs[2] ?? '';
    i = 3;
  } else if (segs[0] === 'core') {
    apiVersion = segs[1] ?? '';
    i = 2;
  } else {
    return EMPTY_PATH;
  }
  let rest = segs.slice(i).map((s) => decodePathSegment(s));
  if (rest.length === 0) return EMPTY_PATH; // discovery: /api/v1, /apis/apps/v1
  let isLegacyWatch = false;
  if (rest[0] === 'watch' || rest[0] === 'proxy') {
    isLegacyWatch = rest[0] === 'watch';
    rest = rest.slice(1);
    if (rest.length === 0) return EMPTY_PATH;
  }
  let namespace = '';
  // /namespaces/{ns}/{resource}… — but /namespaces/{name} and /namespaces/{name}/{status|finalize}
  // address the namespace object itself (RequestInfo special case).
  // (/namespaces alone is the list of namespaces: the general case below)
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    namespace = rest[1]!;
    if (rest.length === 2) return { isResourceRequest: true, apiGroup, apiVersion, resource: 'namespaces', namespace: '', name: namespace, subresource: '', isLegacyWatch };
    rest = rest.slice(2);
    if (rest.length === 1 && (rest[0] === 'status' || rest[0] === 'finalize')) {
      return { isResourceRequest: true, apiGroup, apiVersion, resource: 'namespaces', namespace: '', name: namespace, subresource: rest[0]!, isLegacyWatch };
    }
  }
  return {
    isResourceRequest: true,
    apiGroup,
    apiVersion,
    resource: rest[0] ?? '',
    namespace,
    name: rest[1] ?? '',
    subresource: rest.slice(2).join('/'),
    isLegacyWatch,
  };
}

function decodePathSegment(s: string): string {
  // Stryker disable next-line ConditionalExpression,StringLiteral: a shortcut; decoding a plain segment gives it back
  if (s.indexOf('%') < 0) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Parses a raw requestURI (path and query, as the apiserver logged it). */
export function parseRequestUri(uri: string): ParsedRequestUri {
  const q = uri.indexOf('?');
  // Stryker disable next-line EqualityOperator: a URI that starts with '?' has no path either way
  const pathPart = q < 0 ? uri : uri.slice(0, q);
  const { query, badEscape } = parseQueryOf(uri, q);
  const path = parsePath(pathPart);
  if (path.isLegacyWatch) query.watch = true;
  return { path, query, badEscape };
}

function parseQueryOf(uri: string, q: number): { query: ListQuery; badEscape: boolean } {
  // Stryker disable next-line StringLiteral: a query of no known parameter parses as the empty one
  if (q < 0) return parseListQuery('');
  const queryPart = uri.slice(q + 1);
  const hash = queryPart.indexOf('#');
  // Stryker disable next-line EqualityOperator: a query that starts with '#' is all fragment either way
  return parseListQuery(hash < 0 ? queryPart : queryPart.slice(0, hash));
}

/** The query of a requestURI, for a caller that has the path's parts already (from objectRef). Equal to
 * parseRequestUri(uri).query: a path that could be the legacy /watch/ prefix (or is %-escaped) is parsed. */
export function parseRequestQuery(uri: string): ListQuery {
  const q = uri.indexOf('?');
  const pathEnd = q < 0 ? uri.length : q;
  const w = uri.indexOf('/watch', 0);
  const pct = uri.indexOf('%', 0);
  // Stryker disable next-line ConditionalExpression: a shortcut; parsing the whole URI gives the same query
  if ((w >= 0 && w < pathEnd) || (pct >= 0 && pct < pathEnd)) return parseRequestUri(uri).query;
  return parseQueryOf(uri, q).query;
}
