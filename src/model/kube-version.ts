/*! Kubernetes versions: parsing "v1.29.4", and inferring the cluster's version from the user agents
 * of control-plane components seen in the audit log (client-go buildUserAgent: "name/vX.Y.Z (os/arch) kubernetes/sha"). */

import { formatCount } from './count-format.js';

/** A Kubernetes release; patch is null when only "1.29" is known. */
export interface KubeVersion {
  major: number;
  minor: number;
  patch: number | null;
}

/** Parses "1.29", "v1.29.4", "v1.29.4-eks-1234" (pre-release and build suffixes are ignored). */
export function parseKubeVersion(s: string): KubeVersion | null {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(s.trim());
  if (!m) return null;
  return { major: Number(m[1]), minor: Number(m[2]), patch: m[3] === undefined ? null : Number(m[3]) };
}

/** "1.29" or "1.29.4". */
export function formatKubeVersion(v: KubeVersion): string {
  return v.patch === null ? `${v.major}.${v.minor}` : `${v.major}.${v.minor}.${v.patch}`;
}

/** Orders versions; a missing patch sorts as the highest patch of that minor. */
export function compareKubeVersion(a: KubeVersion, b: KubeVersion): number {
  if (a.major !== b.major) return a.major - b.major;
  if (a.minor !== b.minor) return a.minor - b.minor;
  return (a.patch ?? 9999) - (b.patch ?? 9999);
}

// Components whose version equals the apiserver's (or is at most one minor behind, by the skew policy),
// most trustworthy first. A user agent alone is spoofable, so the username must match too.
const COMPONENTS: ReadonlyArray<{ ua: string; user: (u: string) => boolean; rank: number }> = [
  { ua: 'kube-apiserver/', user: (u) => u === 'system:apiserver', rank: 0 },
  { ua: 'kube-controller-manager/', user: (u) => u === 'system:kube-controller-manager' || u.startsWith('system:serviceaccount:kube-system:'), rank: 1 },
  { ua: 'kube-scheduler/', user: (u) => u === 'system:kube-scheduler', rank: 1 },
  { ua: 'kubelet/', user: (u) => u.startsWith('system:node:'), rank: 2 },
  { ua: 'kube-proxy/', user: (u) => u === 'system:kube-proxy' || u.startsWith('system:serviceaccount:kube-system:'), rank: 3 },
];

interface AgentMatch {
  c: (typeof COMPONENTS)[number];
  version: string;
  key: string | null;
}

function matchAgent(userAgent: string): AgentMatch | null {
  for (const c of COMPONENTS) {
    if (!userAgent.startsWith(c.ua)) continue;
    const end = userAgent.indexOf(' ', c.ua.length);
    // Stryker disable next-line EqualityOperator: end is -1 or at least the prefix's length, never 0
    const version = userAgent.slice(c.ua.length, end < 0 ? undefined : end);
    return { c, version, key: parseKubeVersion(version) === null ? null : c.ua + version };
  }
  return null;
}

/** One control-plane user agent seen in the log, with how often. */
export interface VersionEvidence {
  component: string;
  version: string;
  events: number;
  rank: number;
}

/** Collects component versions from (username, userAgent) pairs; bounded by distinct versions. */
export class VersionEvidenceCollector {
  private readonly seen = new Map<string, VersionEvidence>();
  /** last (username, userAgent) pair that matched, so kubelet-heavy logs skip the parsing */
  // Stryker disable next-line StringLiteral: the starting values are never read before a match sets all three
  private lastUser = '';
  // Stryker disable next-line StringLiteral: as above
  private lastAgent = '';
  // Stryker disable next-line StringLiteral: as above
  private lastKey = '';

  /** Records one request's user agent if it is a control-plane component's. */
  add(username: string, userAgent: string, weight = 1): void {
    // Every component's user agent starts with "k": a shortcut past the lookup, which would find nothing anyway.
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a shortcut; without it matchAgent returns null
    if (userAgent.length === 0 || userAgent.charCodeAt(0) !== 107 /* k */) return;
    // A shortcut for the same agent again from the same user (or another node): the lookup below counts it the same.
    // Stryker disable next-line ConditionalExpression,LogicalOperator,MethodExpression,BlockStatement: taking the shortcut less often changes nothing
    if (userAgent === this.lastAgent && (username === this.lastUser || (username.startsWith('system:node:') && this.lastUser.startsWith('system:node:')))) {
      this.seen.get(this.lastKey)!.events += weight;
      return;
    }
    // At most one component's prefix matches a user agent, so what the agent says is parsed once per agent.
    let m = this.agents.get(userAgent);
    // Stryker disable next-line ConditionalExpression: a memo; parsing again gives the same match
    if (m === undefined) {
      m = matchAgent(userAgent);
      // Stryker disable next-line ConditionalExpression,EqualityOperator: when the memo is emptied changes memory, not answers
      if (this.agents.size >= 10_000) this.agents.clear();
      this.agents.set(userAgent, m);
    }
    if (m === null || !m.c.user(username) || m.key === null) return;
    const e = this.seen.get(m.key);
    if (e) e.events += weight;
    else this.seen.set(m.key, { component: m.c.ua.slice(0, -1), version: m.version, events: weight, rank: m.c.rank });
    this.lastUser = username;
    this.lastAgent = userAgent;
    this.lastKey = m.key;
  }

  /** user agent → its component and version (key null: the version does not parse), or null */
  private readonly agents = new Map<string, AgentMatch | null>();

  /** Merges another collector's evidence (from another input or worker). */
  mergeList(list: VersionEvidence[]): void {
    for (const e of list) {
      const key = `${e.component}/${e.version}`;
      const mine = this.seen.get(key);
      if (mine) mine.events += e.events;
      else this.seen.set(key, { ...e });
    }
  }

  list(): VersionEvidence[] {
    return [...this.seen.values()];
  }
}

/** The version the classifier uses, and why. */
export interface AssumedVersion {
  version: KubeVersion;
  source: 'flag' | 'metrics' | 'inferred' | 'default';
  reason: string;
}

/** The default when neither a flag nor the log tells: the last release where every list without
 * resourceVersion goes to etcd, so the scan errs towards flagging etcd load rather than hiding it. */
export const DEFAULT_KUBE_VERSION: KubeVersion = { major: 1, minor: 30, patch: null };

/** Picks the apiserver version from evidence: the highest version of the most trusted component seen. */
export function inferKubeVersion(evidence: VersionEvidence[]): AssumedVersion {
  if (evidence.length === 0) {
    return {
      version: DEFAULT_KUBE_VERSION,
      source: 'default',
      reason: `no control-plane user agent in the log; assumed ${formatKubeVersion(DEFAULT_KUBE_VERSION)} (pass --kube-version)`,
    };
  }
  const bestRank = Math.min(...evidence.map((e) => e.rank));
  const candidates = evidence.filter((e) => e.rank === bestRank);
  let best = candidates[0]!;
  for (const e of candidates) {
    const c = compareKubeVersion(parseKubeVersion(e.version)!, parseKubeVersion(best.version)!);
    if (c > 0 || (c === 0 && e.events > best.events)) best = e;
  }
  const v = parseKubeVersion(best.version)!;
  return {
    version: v,
    source: 'inferred',
    reason: `from user agent ${best.component}/${best.version} (${formatCount(best.events)} ${best.events === 1 ? 'request' : 'requests'})`,
  };
}
