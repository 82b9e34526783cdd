/*! One job: the changes an audit log shows that a postmortem's fixes are made of (issue 47 #1): a FlowSchema or
 * priority level created or changed, a DaemonSet, Deployment or StatefulSet rolled out or reconfigured. `diff
 * --split-at KIND/NAME` cuts the log at one of them. Controllers' own writes (status, the rollout's ReplicaSets)
 * are not changes: only writes of the object itself by someone other than the control plane. The apiserver's own
 * log adds its restarts' changes, a flag or the version (apiserver-changes.ts); they are named here alike. */

import type { AuditEvent } from '../model/audit-event.js';

export interface LogChange {
  /** when the apiserver received it (ms) */
  atMs: number;
  /** flowschema, prioritylevelconfiguration, daemonset, deployment, statefulset; apiserver-flag, apiserver-version */
  kind: string;
  namespace: string;
  name: string;
  verb: string;
  username: string;
  userAgent: string;
  /** a change at an apiserver's restart (verb 'restart'): the flag's value or the version before and after, as
   * shown (a secret's value never: `(set)`, `(changed)`), and the input (and apiserver) it is in */
  restart?: { from: string; to: string; input: string };
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
  // a dry run (kubectl diff, server-side-apply previews of Flux and Argo CD) changed nothing
  if (/[?&]dryRun=/.test(e.requestURI)) return null;
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

/** What a change did, for a line of its own: "patch by alice (kubectl/v1.29.4 …)", or a restart's
 * "(not set) → "0.001", at a restart of the apiserver in audit.log". */
export function changeDetail(c: LogChange): string {
  if (c.restart !== undefined) return `${c.restart.from} → ${c.restart.to}, at a restart of the apiserver in ${c.restart.input}`;
  return `${c.verb} by ${c.username} (${c.userAgent})`;
}

/** The same, short, for a list of them: "patch by alice", "(not set) → "0.001"". */
export function changeBrief(c: LogChange): string {
  return c.restart !== undefined ? `${c.restart.from} → ${c.restart.to}` : `${c.verb} by ${c.username}`;
}

/** Whether `spec` (KIND/NAME or KIND/NAMESPACE/NAME, KIND in singular, any case; apiserver-flag/NAME with or
 * without the dashes; apiserver-version, or apiserver-version/VERSION for a change to it) names change `c`. */
export function changeMatches(spec: string, c: LogChange): boolean {
  const parts = spec.toLowerCase().split('/');
  const kind = parts[0]!.replace(/s$/, '');
  if (kind !== c.kind) return false;
  if (kind === 'apiserver-version') return parts.length === 1 || (parts.length === 2 && parts[1] === c.name.toLowerCase());
  if (kind === 'apiserver-flag') return parts.length === 2 && parts[1]!.replace(/^--?/, '') === c.name.toLowerCase();
  if (parts.length === 2) return parts[1] === c.name;
  if (parts.length === 3) return parts[1] === c.namespace && parts[2] === c.name;
  return false;
}

/** A KIND/NAME spec rather than a time. */
export function isChangeSpec(s: string): boolean {
  return /^(flowschemas?|prioritylevelconfigurations?|daemonsets?|deployments?|statefulsets?)\/[^/]+(\/[^/]+)?$/i.test(s) || /^apiserver-flags?\/[^/]+$|^apiserver-versions?(\/[^/]+)?$/i.test(s);
}
