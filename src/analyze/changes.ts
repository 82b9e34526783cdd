/*! One job: the changes an audit log shows that a postmortem's fixes are made of (issue 47 #1): a FlowSchema or
 * priority level created or changed, a DaemonSet, Deployment or StatefulSet rolled out or reconfigured. `diff
 * --split-at KIND/NAME` cuts the log at one of them. Controllers' own writes (status, the rollout's ReplicaSets)
 * are not changes: only writes of the object itself by someone other than the control plane. */

import type { AuditEvent } from '../model/audit-event.js';

export interface LogChange {
  /** when the apiserver received it (ms) */
  atMs: number;
  /** flowschema, prioritylevelconfiguration, daemonset, deployment, statefulset */
  kind: string;
  namespace: string;
  name: string;
  verb: string;
  username: string;
  userAgent: string;
}

const KINDS: Record<string, { group: string; kind: string }> = {
  flowschemas: { group: 'flowcontrol.apiserver.k8s.io', kind: 'flowschema' },
  prioritylevelconfigurations: { group: 'flowcontrol.apiserver.k8s.io', kind: 'prioritylevelconfiguration' },
  daemonsets: { group: 'apps', kind: 'daemonset' },
  deployments: { group: 'apps', kind: 'deployment' },
  statefulsets: { group: 'apps', kind: 'statefulset' },
};

/** The control plane's own writers: their writes follow a change, they are not one. */
function isControlPlane(username: string): boolean {
  return username.startsWith('system:kube-controller-manager') || username.startsWith('system:serviceaccount:kube-system:') || username === 'system:apiserver' || username.startsWith('system:node:');
}

/** The change one event is, or null. Only the request's final stage counts, and only a write that succeeded. */
export function changeOf(e: AuditEvent): LogChange | null {
  if (e.stage !== 'ResponseComplete' || e.receivedMs === null) return null;
  if (e.verb !== 'create' && e.verb !== 'update' && e.verb !== 'patch') return null;
  if (e.subresource.length > 0) return null;
  const k = KINDS[e.resource];
  if (k === undefined || k.group !== e.apiGroup) return null;
  if (e.code !== null && (e.code < 200 || e.code >= 300)) return null;
  if (isControlPlane(e.username)) return null;
  // a create names its object in the response, which Metadata level does not keep: the URI's last segment else
  const name = e.name.length > 0 ? e.name : '';
  return { atMs: e.receivedMs, kind: k.kind, namespace: e.namespace, name, verb: e.verb, username: e.username, userAgent: e.userAgent };
}

/** "daemonset/logging/vector", "flowschema/vector": how a change is named on the command line. */
export function changeLabel(c: Pick<LogChange, 'kind' | 'namespace' | 'name'>): string {
  return [c.kind, ...(c.namespace.length > 0 ? [c.namespace] : []), c.name || '?'].join('/');
}

/** Whether `spec` (KIND/NAME or KIND/NAMESPACE/NAME, KIND in singular, any case) names change `c`. */
export function changeMatches(spec: string, c: LogChange): boolean {
  const parts = spec.toLowerCase().split('/');
  const kind = parts[0]!.replace(/s$/, '');
  if (kind !== c.kind) return false;
  if (parts.length === 2) return parts[1] === c.name;
  if (parts.length === 3) return parts[1] === c.namespace && parts[2] === c.name;
  return false;
}

/** A KIND/NAME spec rather than a time. */
export function isChangeSpec(s: string): boolean {
  return /^(flowschemas?|prioritylevelconfigurations?|daemonsets?|deployments?|statefulsets?)\/[^/]+(\/[^/]+)?$/i.test(s);
}
