/*! API Priority and Fairness manifests that queue one noisy client (DOMAIN.md §6). The API version follows
 * the cluster: flowcontrol v1 since 1.29, v1beta3 on 1.26–1.28 (same fields), v1beta2 before (assuredConcurrencyShares). */

import type { KubeVersion } from '../model/kube-version.js';

/** What the manifests must match. */
export interface ApfTarget {
  username: string;
  apiGroup: string;
  resource: string;
  verbs: string[];
  clusterScope: boolean;
  namespaced: boolean;
}

/** DNS-1123 subdomain from free text, ≤ 63 characters. */
function dnsName(s: string): string {
  const n = s.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').replace(/-{2,}/g, '-');
  return (n.length > 0 ? n : 'client').slice(0, 50).replace(/-+$/, '');
}

const q = (s: string): string => JSON.stringify(s); // a JSON string is a valid YAML double-quoted scalar

/** Returns the two manifests as YAML, or null for users APF should not throttle (nodes, apiserver, masters). */
export function renderApfYaml(t: ApfTarget, v: KubeVersion): string | null {
  const u = t.username;
  if (u.length === 0 || u.startsWith('system:node:') || u === 'system:apiserver' || u === 'system:kube-controller-manager' || u === 'system:kube-scheduler') return null;
  let subject: string[];
  let base: string;
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(u);
  if (sa) {
    base = `${sa[1]}-${sa[2]}`;
    subject = ['    - kind: ServiceAccount', '      serviceAccount:', `        namespace: ${q(sa[1]!)}`, `        name: ${q(sa[2]!)}`];
  } else {
    base = u;
    subject = ['    - kind: User', '      user:', `        name: ${q(u)}`];
  }
  const name = `audit-scan-${dnsName(base)}`;
  const minor = v.minor;
  const apiVersion = minor >= 29 ? 'flowcontrol.apiserver.k8s.io/v1' : minor >= 26 ? 'flowcontrol.apiserver.k8s.io/v1beta3' : 'flowcontrol.apiserver.k8s.io/v1beta2';
  const shares = minor >= 26 ? 'nominalConcurrencyShares' : 'assuredConcurrencyShares';
  const rule = [
    '    resourceRules:',
    `    - verbs: [${t.verbs.map(q).join(', ')}]`,
    `      apiGroups: [${q(t.apiGroup)}]`,
    `      resources: [${q(t.resource)}]`,
  ];
  if (t.clusterScope) rule.push('      clusterScope: true');
  if (t.namespaced) rule.push('      namespaces: ["*"]');
  return [
    `# Queue ${u} in a small priority level of its own. Precedence 850 beats the`,
    '# suggested kube-system-service-accounts (900) and service-accounts (9000) schemas.',
    `apiVersion: ${apiVersion}`,
    'kind: PriorityLevelConfiguration',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    '  type: Limited',
    '  limited:',
    `    ${shares}: 5`,
    ...(minor >= 26 ? ['    lendablePercent: 0'] : []),
    '    limitResponse:',
    '      type: Queue',
    '      queuing:',
    '        queues: 16',
    '        handSize: 4',
    '        queueLengthLimit: 50',
    '---',
    `apiVersion: ${apiVersion}`,
    'kind: FlowSchema',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    '  priorityLevelConfiguration:',
    `    name: ${name}`,
    '  matchingPrecedence: 850',
    '  distinguisherMethod:',
    '    type: ByUser',
    '  rules:',
    '  - subjects:',
    ...subject,
    ...rule,
  ].join('\n') + '\n';
}
