/*! requestURI → { group, version, resource, namespace, name, subresource } plus the list query.
 * Mirrors k8s.io/apiserver RequestInfoFactory (requestinfo.go) for the path, and url.Values for the query. */

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

/** The query parameters that decide where a read is served from. */
export interface ListQuery {
  fieldSelector: string | null;
  labelSelector: string | null;
  resourceVersion: string | null; // null = absent (the same as "" for the apiserver)
  resourceVersionMatch: string | null;
  limit: number; // 0 = absent or invalid
  continueToken: boolean;
  watch: boolean;
  sendInitialEvents: boolean;
}

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
  if (qs.length === 0) return { query, badEscape };
  for (const part of qs.split('&')) {
    if (part.length === 0) continue;
    const eq = part.indexOf('=');
    const rawKey = eq < 0 ? part : part.slice(0, eq);
    const rawVal = eq < 0 ? '' : part.slice(eq + 1);
    const k = decodeQueryComponent(rawKey);
    const v = decodeQueryComponent(rawVal);
    if (!k.ok || !v.ok) badEscape = true;
    // Like url.Values.Get, the first occurrence wins.
    switch (k.value) {
      case 'fieldSelector':
        if (query.fieldSelector === null) query.fieldSelector = v.value;
        break;
      case 'labelSelector':
        if (query.labelSelector === null) query.labelSelector = v.value;
        break;
      case 'resourceVersion':
        if (query.resourceVersion === null) query.resourceVersion = v.value;
        break;
      case 'resourceVersionMatch':
        if (query.resourceVersionMatch === null) query.resourceVersionMatch = v.value;
        break;
      case 'limit': {
        const n = Number.parseInt(v.value, 10);
        if (query.limit === 0 && Number.isFinite(n) && n > 0) query.limit = n;
        break;
      }
      case 'continue':
        if (v.value.length > 0) query.continueToken = true;
        break;
      case 'watch':
        // apiserver: watch=true or watch=1 (and any value strconv.ParseBool accepts as true)
        if (v.value === 'true' || v.value === '1' || v.value === 't' || v.value === 'T' || v.value === 'TRUE' || v.value === 'True') query.watch = true;
        break;
      case 'sendInitialEvents':
        if (v.value === 'true' || v.value === '1') query.sendInitialEvents = true;
        break;
    }
  }
  return { query, badEscape };
}

// Path segments: RequestInfoFactory treats /api as the core group prefix and /apis as named groups.
function parsePath(path: string): ApiPath {
  // Some converters (e.g. the Stackdriver bridge) drop the leading slash: "core/v1/namespaces/…".
  let p = path;
  if (p.length > 0 && p.charCodeAt(0) !== 47) p = '/' + p;
  const segs = p.split('/').filter((s) => s.length > 0);
  let i = 0;
  let apiGroup = '';
  let apiVersion = '';
  if (segs[0] === 'api') {
    if (segs.length < 2) return EMPTY_PATH;
    apiVersion = segs[1]!;
    i = 2;
  } else if (segs[0] === 'apis') {
    if (segs.length < 3) return EMPTY_PATH;
    apiGroup = segs[1]!;
    apiVersion = segs[2]!;
    i = 3;
  } else if (segs[0] === 'core' && segs.length >= 2) {
    apiVersion = segs[1]!;
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
  if (rest[0] === 'namespaces') {
    if (rest.length >= 2) {
      namespace = rest[1]!;
      if (rest.length >= 3) {
        rest = rest.slice(2);
      } else {
        return { isResourceRequest: true, apiGroup, apiVersion, resource: 'namespaces', namespace: '', name: namespace, subresource: '', isLegacyWatch };
      }
      if (rest.length === 1 && (rest[0] === 'status' || rest[0] === 'finalize')) {
        return { isResourceRequest: true, apiGroup, apiVersion, resource: 'namespaces', namespace: '', name: namespace, subresource: rest[0]!, isLegacyWatch };
      }
    } else {
      return { isResourceRequest: true, apiGroup, apiVersion, resource: 'namespaces', namespace: '', name: '', subresource: '', isLegacyWatch };
    }
  }
  return {
    isResourceRequest: true,
    apiGroup,
    apiVersion,
    resource: rest[0] ?? '',
    namespace,
    name: rest[1] ?? '',
    subresource: rest.length > 2 ? rest.slice(2).join('/') : '',
    isLegacyWatch,
  };
}

function decodePathSegment(s: string): string {
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
  const pathPart = q < 0 ? uri : uri.slice(0, q);
  const queryPart = q < 0 ? '' : uri.slice(q + 1);
  const hash = queryPart.indexOf('#');
  const { query, badEscape } = parseListQuery(hash < 0 ? queryPart : queryPart.slice(0, hash));
  const path = parsePath(pathPart);
  if (path.isLegacyWatch) query.watch = true;
  return { path, query, badEscape };
}
