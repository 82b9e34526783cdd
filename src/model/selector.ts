/*! Field and label selectors → a "shape" with per-instance values replaced by placeholders,
 * so one DaemonSet listing `spec.nodeName=<its node>` on 64 nodes is one group, not 64. */

/** One selector requirement, as written by the client. */
export interface SelectorTerm {
  key: string;
  op: '=' | '!=' | 'in' | 'notin' | 'exists' | '!exists';
  value: string; // for in/notin: the raw "(a,b)" text
}

/** What a selector tells us: its shape plus the per-instance values it named. */
export interface SelectorInfo {
  /** Shape with placeholders, e.g. "spec.nodeName=<node>"; "" when no selector. */
  shape: string;
  /** The node named by `spec.nodeName=` (or label kubernetes.io/hostname), if any. */
  node: string | null;
  /** metadata.name=X: the apiserver reads a single etcd key. */
  singleName: string | null;
  /** metadata.namespace=X: the apiserver narrows the etcd range to one namespace. */
  singleNamespace: string | null;
  hasFieldSelector: boolean;
  hasLabelSelector: boolean;
}

// Field selector values that identify one instance (pod strategy ToSelectableFields, event fields).
const FIELD_PLACEHOLDERS: Record<string, string> = {
  'spec.nodeName': '<node>',
  'metadata.name': '<name>',
  'metadata.namespace': '<namespace>',
  'metadata.uid': '<uid>',
  'involvedObject.name': '<name>',
  'involvedObject.namespace': '<namespace>',
  'involvedObject.uid': '<uid>',
  'regarding.name': '<name>',
  'regarding.uid': '<uid>',
  'status.podIP': '<ip>',
  'spec.nominatedNodeName': '<node>',
  'status.nominatedNodeName': '<node>',
  'spec.signerName': '<signer>',
};

// Label keys whose values identify one instance.
const LABEL_PLACEHOLDERS: Record<string, string> = {
  'kubernetes.io/hostname': '<node>',
  'statefulset.kubernetes.io/pod-name': '<name>',
  'apps.kubernetes.io/pod-index': '<index>',
  'controller-uid': '<uid>',
  'batch.kubernetes.io/controller-uid': '<uid>',
  'job-name': '<name>',
  'batch.kubernetes.io/job-name': '<name>',
  'pod-template-hash': '<hash>',
  'controller-revision-hash': '<hash>',
  'pod-template-generation': '<n>',
};

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Splits on commas that are not inside "(…)" (label set syntax `k in (a,b)`). */
function splitTerms(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  // Stryker disable next-line EqualityOperator: one more round reads charCodeAt(length), NaN, which is no delimiter
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 40) depth++;
    else if (c === 41) depth = Math.max(0, depth - 1);
    else if (c === 44 && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out.map((t) => t.trim()).filter((t) => t.length > 0);
}

/** Parses one field or label requirement. Unknown syntax is kept whole as an "exists" term. */
export function parseTerm(t: string): SelectorTerm {
  // The set form needs a closing parenthesis at the end: test that before the (backtracking) regex.
  // Stryker disable next-line Regex: without ^ the leftmost match still starts at 0 (the lazy key takes any prefix); without $ the greedy set still ends at the last ")", the end; one \s before in/notin: the lazy key takes the others, and it is trimmed
  let m = t.charCodeAt(t.length - 1) === 41 ? /^(.*?)\s+(notin|in)\s+(\(.*\))$/.exec(t) : null;
  // Stryker disable next-line Regex: a global replace of single spaces removes all of them, as of runs does
  if (m) return { key: m[1]!.trim(), op: m[2] as 'in' | 'notin', value: m[3]!.replace(/\s+/g, '') };
  let i = t.indexOf('!=');
  if (i > 0) return { key: t.slice(0, i).trim(), op: '!=', value: t.slice(i + 2).trim() };
  i = t.indexOf('==');
  if (i > 0) return { key: t.slice(0, i).trim(), op: '=', value: t.slice(i + 2).trim() };
  i = t.indexOf('=');
  if (i > 0) return { key: t.slice(0, i).trim(), op: '=', value: t.slice(i + 1).trim() };
  // Stryker disable next-line Regex: without $ the greedy (.+) still runs to the end
  m = /^!\s*(.+)$/.exec(t);
  if (m) return { key: m[1]!.trim(), op: '!exists', value: '' };
  return { key: t, op: 'exists', value: '' };
}

function termShape(term: SelectorTerm, placeholders: Record<string, string>): string {
  switch (term.op) {
    case 'exists':
      return term.key;
    case '!exists':
      return '!' + term.key;
    case 'in':
    case 'notin':
      return `${term.key} ${term.op} ${term.value}`;
    default: {
      let v = term.value;
      // An empty value is meaningful (`spec.nodeName=` = unscheduled pods): keep it.
      if (v.length > 0 && term.op === '=') {
        const ph = placeholders[term.key];
        if (ph !== undefined) v = ph;
        else if (UUID_RE.test(v)) v = '<uid>';
        // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty value is no UUID either way
      } else if (v.length > 0 && UUID_RE.test(v)) {
        v = '<uid>';
      }
      return `${term.key}${term.op}${v}`;
    }
  }
}

const NO_SELECTOR: SelectorInfo = Object.freeze({ shape: '', node: null, singleName: null, singleNamespace: null, hasFieldSelector: false, hasLabelSelector: false });

/** Computes the selector shape and the instance values it names. Inputs are URL-decoded already. */
export function describeSelectors(fieldSelector: string | null, labelSelector: string | null): SelectorInfo {
  // Stryker disable next-line ConditionalExpression: a shortcut; computing no selector gives an equal, frozen answer
  if (fieldSelector === null && labelSelector === null) return NO_SELECTOR; // most reads
  // Clients repeat their selectors (a DaemonSet pod lists with its node's name every time), so the result is
  // remembered: two generations of 4,096, a hit in the old one moves it to the young one.
  // Length-prefixed, so no pair of selectors (which may hold any character, %00 included) shares a key.
  const fieldLength = fieldSelector === null ? -1 : fieldSelector.length;
  // Stryker disable next-line StringLiteral: what stands for a null field is never compared: its length -1 sets it apart
  const field = fieldSelector ?? '';
  // Stryker disable next-line ConditionalExpression,EqualityOperator: the flag tells a null label from an empty one, which have the same answer; any flag that differs between null and not-null keeps other pairs apart
  const flag = labelSelector === null ? 'n' : 'l';
  // Stryker disable next-line StringLiteral: what stands for a null label follows its own flag
  const label = labelSelector ?? '';
  const key = `${fieldLength}:${field}${flag}${label}`;
  let info = young.get(key);
  if (info !== undefined) return info;
  info = old.get(key) ?? Object.freeze(computeSelectors(fieldSelector, labelSelector));
  young.set(key, info);
  if (young.size >= MEMO_GENERATION) {
    old = young;
    young = new Map();
  }
  return info;
}

const MEMO_GENERATION = 4096;
let young = new Map<string, SelectorInfo>();
let old = new Map<string, SelectorInfo>();

/** Forgets every remembered selector. For tests: a mutation run changes the code under one process, and a
 * shape remembered from before the change would hide it. */
export function selectorMemoSize(): number {
  return young.size + old.size;
}

export function clearSelectorMemo(): void {
  young = new Map();
  old = new Map();
}

function computeSelectors(fieldSelector: string | null, labelSelector: string | null): SelectorInfo {
  const info: SelectorInfo = {
    // Stryker disable next-line StringLiteral: set at the end, always
    shape: '',
    node: null,
    singleName: null,
    singleNamespace: null,
    hasFieldSelector: fieldSelector !== null && fieldSelector.trim().length > 0,
    hasLabelSelector: labelSelector !== null && labelSelector.trim().length > 0,
  };
  const parts: string[] = [];
  if (info.hasFieldSelector) {
    const terms = splitTerms(fieldSelector!).map(parseTerm);
    for (const t of terms) {
      if (t.op !== '=') continue;
      if (t.key === 'spec.nodeName' && t.value.length > 0) info.node = t.value;
      else if (t.key === 'metadata.name') info.singleName = t.value;
      else if (t.key === 'metadata.namespace') info.singleNamespace = t.value;
    }
    // Terms keep the client's order in the label, but sort so "a,b" and "b,a" are one shape.
    parts.push(terms.map((t) => termShape(t, FIELD_PLACEHOLDERS)).sort().join(','));
  }
  if (info.hasLabelSelector) {
    const terms = splitTerms(labelSelector!).map(parseTerm);
    for (const t of terms) {
      if (t.op === '=' && t.key === 'kubernetes.io/hostname' && info.node === null) info.node = t.value;
    }
    parts.push(`labels(${terms.map((t) => termShape(t, LABEL_PLACEHOLDERS)).sort().join(',')})`);
  }
  info.shape = parts.join(' ');
  return info;
}
