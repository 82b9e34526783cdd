/*! etcd key (and range_end) → the Kubernetes resource it stores, using the real key layout:
 * `--etcd-prefix` (default /registry) + resource prefix (+ /namespace) (+ /name). See DOMAIN.md §2.
 * Without --etcd-prefix the prefix is inferred per key (inferPrefix): OpenShift 4 keeps kube-apiserver's
 * objects under /kubernetes.io and openshift-apiserver's under /openshift.io, both in one etcd. */

/** What an etcd read covered. */
export interface EtcdKeyRange {
  /** Join key shared with audit lists: "pods", "nodes", or "<group>/<plural>" for custom resources. */
  resourceKey: string;
  resource: string; // the API resource name ("nodes" for /registry/minions/)
  apiGroup: string | null; // known only for custom resources and apiservices/CRDs
  namespace: string | null;
  name: string | null;
  scope: 'all' | 'namespace' | 'single' | 'keyspace' | 'outside';
  /** the key prefix the read sits under ("/registry"); null when outside any */
  prefix: string | null;
}

// SpecialDefaultResourcePrefixes (pkg/kubeapiserver/default_storage_factory_builder.go), reversed.
const SPECIAL_PREFIXES: ReadonlyArray<[string, string]> = [
  ['services/specs', 'services'],
  ['services/endpoints', 'endpoints'],
  ['minions', 'nodes'],
  ['controllers', 'replicationcontrollers'],
  ['ingress', 'ingresses'],
];

/** Built-in resources that are cluster-scoped (so "/registry/<r>/x" is an object, not a namespace). */
export const CLUSTER_SCOPED = new Set([
  'nodes', 'namespaces', 'persistentvolumes', 'clusterroles', 'clusterrolebindings', 'storageclasses',
  'csidrivers', 'csinodes', 'volumeattachments', 'priorityclasses', 'runtimeclasses',
  'mutatingwebhookconfigurations', 'validatingwebhookconfigurations', 'validatingadmissionpolicies',
  'validatingadmissionpolicybindings', 'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings',
  'flowschemas', 'prioritylevelconfigurations', 'certificatesigningrequests', 'ingressclasses',
  'apiservices', 'customresourcedefinitions', 'ipaddresses', 'servicecidrs', 'deviceclasses',
  'resourceslices', 'clustertrustbundles', 'componentstatuses', 'storageversions', 'masterleases', 'ranges',
]);

/** Built-in resources that are namespaced: a key names one only with its namespace (NamespaceKeyFunc). */
export const NAMESPACED = new Set([
  'pods', 'configmaps', 'secrets', 'serviceaccounts', 'persistentvolumeclaims', 'events', 'limitranges',
  'resourcequotas', 'podtemplates', 'deployments', 'replicasets', 'daemonsets', 'statefulsets',
  'controllerrevisions', 'jobs', 'cronjobs', 'horizontalpodautoscalers', 'leases', 'endpointslices',
  'networkpolicies', 'poddisruptionbudgets', 'roles', 'rolebindings', 'csistoragecapacities', 'resourceclaims',
  'resourceclaimtemplates', 'leasecandidates', 'services', 'endpoints', 'replicationcontrollers', 'ingresses',
]);

/** Storage prefixes of built-in resources (the first key segment after --etcd-prefix), for inferPrefix(). A
 * segment found here marks where the prefix ends; the API groups whose objects sit under <group>/<plural>
 * (CRDs, APIServices) count too. */
const STORAGE_SEGMENTS = new Set([
  ...CLUSTER_SCOPED,
  ...SPECIAL_PREFIXES.map(([p]) => p.split('/')[0]!),
  'pods', 'configmaps', 'secrets', 'serviceaccounts', 'persistentvolumeclaims', 'events', 'limitranges',
  'resourcequotas', 'podtemplates', 'deployments', 'replicasets', 'daemonsets', 'statefulsets',
  'controllerrevisions', 'jobs', 'cronjobs', 'horizontalpodautoscalers', 'leases', 'endpointslices',
  'networkpolicies', 'poddisruptionbudgets', 'roles', 'rolebindings', 'csistoragecapacities',
  'volumeattributesclasses', 'resourceclaims', 'resourceclaimtemplates', 'leasecandidates',
  'apiextensions.k8s.io', 'apiregistration.k8s.io',
]);

/** Prefixes known without being told: kube-apiserver's default, and OpenShift 4's two apiservers'. */
export const KNOWN_PREFIXES: readonly string[] = ['/registry', '/kubernetes.io', '/openshift.io'];

/** The prefix a key sits under when --etcd-prefix is not given: a known prefix, or the one or two segments
 * before a built-in resource's storage segment ("/custom/pods/ns/x" → "/custom"). null when neither: the key
 * is not a Kubernetes object's (another etcd client, or a prefix that holds custom resources only). */
export function inferPrefix(key: string): string | null {
  if (!key.startsWith('/')) return null;
  const segs = key.slice(1).split('/');
  if (KNOWN_PREFIXES.includes(`/${segs[0]}`)) return `/${segs[0]}`;
  // past the last segment segs[i] is undefined, which the set does not hold
  for (let i = 1; i <= 2; i++) if (STORAGE_SEGMENTS.has(segs[i]!)) return `/${segs.slice(0, i).join('/')}`;
  return null;
}

/** The etcd key prefix a built-in resource is stored under (inverse of SPECIAL_PREFIXES). */
export function builtinKeyPrefix(resource: string): string {
  for (const [prefix, res] of SPECIAL_PREFIXES) if (res === resource) return prefix;
  return resource;
}

/** Go's clientv3.GetPrefixRangeEnd: the key with its last byte incremented. */
export function prefixRangeEnd(key: string): string {
  // Stryker disable next-line ConditionalExpression: without it '' gives fromCharCode(NaN + 1), also '\u0000'
  if (key.length === 0) return '\u0000';
  return key.slice(0, -1) + String.fromCharCode(key.charCodeAt(key.length - 1) + 1);
}

/** Maps an etcd key and range_end to the resource and scope it read; `etcdPrefix` null infers it per key. */
export function describeEtcdKey(key: string, rangeEnd: string | null, etcdPrefix: string | null = '/registry'): EtcdKeyRange {
  const outside: EtcdKeyRange = { resourceKey: '', resource: '', apiGroup: null, namespace: null, name: null, scope: 'outside', prefix: null };
  if (key === '\u0000' || (key === '' && rangeEnd === '\u0000')) return { ...outside, scope: 'keyspace' };
  const pfx = etcdPrefix === null ? inferPrefix(key) : etcdPrefix.endsWith('/') ? etcdPrefix.slice(0, -1) : etcdPrefix;
  if (pfx === null || !(key === pfx || key.startsWith(pfx + '/'))) return outside;
  const isRange = rangeEnd !== null && rangeEnd.length > 0;
  const isPrefixRange = isRange && rangeEnd === prefixRangeEnd(key);
  let rest = key.slice(pfx.length + 1);
  const trailingSlash = rest.endsWith('/');
  if (trailingSlash) rest = rest.slice(0, -1);
  if (rest.length === 0) return isRange ? { ...outside, scope: 'keyspace', prefix: pfx } : outside;

  let resource: string;
  let apiGroup: string | null = null;
  let resourceKey: string;
  let tail: string[];
  const special = SPECIAL_PREFIXES.find(([p]) => rest === p || rest.startsWith(p + '/'));
  if (special) {
    resource = special[1];
    resourceKey = resource;
    tail = rest.slice(special[0].length + 1).split('/').filter((s) => s.length > 0);
  } else {
    const segs = rest.split('/');
    if (segs[0]!.includes('.') && segs.length >= 2) {
      // Custom resources, CRDs and APIServices: <group>/<plural>/… (SimpleStorageFactory).
      apiGroup = segs[0]!;
      resource = segs[1]!;
      resourceKey = `${apiGroup}/${resource}`;
      tail = segs.slice(2);
    } else {
      resource = segs[0]!;
      resourceKey = resource;
      tail = segs.slice(1);
    }
    tail = tail.filter((s) => s.length > 0);
  }
  const clusterScoped = apiGroup === null && CLUSTER_SCOPED.has(resource);
  let scope: EtcdKeyRange['scope'];
  let namespace: string | null = null;
  let name: string | null = null;
  if (tail.length === 0) {
    scope = isRange ? 'all' : 'single';
  } else if (isPrefixRange || (isRange && trailingSlash)) {
    // A prefix range below the resource: "/registry/pods/ns1/" is one namespace.
    if (clusterScoped) {
      scope = 'all';
    } else {
      scope = 'namespace';
      namespace = tail[0]!;
    }
  } else if (clusterScoped && !isRange) {
    scope = 'single';
    name = tail.join('/');
  } else if (isRange) {
    // A range that starts at an object key is a continue page; range_end says how wide the list is.
    // Only a range that ends where the namespace ends is one namespace; any other (the resource's end) is all.
    const base = `${pfx}/${special ? special[0] : apiGroup !== null ? `${apiGroup}/${resource}` : resource}/`;
    if (rangeEnd === prefixRangeEnd(`${base}${tail[0]}/`)) {
      scope = 'namespace';
      namespace = tail[0]!;
    } else {
      scope = 'all';
    }
  } else if (tail.length >= 2) {
    scope = 'single';
    namespace = tail[0]!;
    name = tail.slice(1).join('/');
  } else {
    // One segment under a namespaced or custom resource: a cluster-scoped object.
    scope = 'single';
    name = tail[0]!;
  }
  return { resourceKey, resource, apiGroup, namespace, name, scope, prefix: pfx };
}
