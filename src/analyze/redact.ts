/*! --redact: stable pseudonyms for usernames and namespaces, so a report can leave the company and still be
 * compared with another (same --redact-key, same pseudonyms). HMAC-SHA256, keyed per run unless a key is given.
 * Built-in identities (system:apiserver, kube-system service accounts, the default namespaces) are kept:
 * they name Kubernetes, not the company. */

// node:crypto is loaded when --redact is given, not on every start (about 6 ms of Node's own modules)
const crypto = (): typeof import('node:crypto') => process.getBuiltinModule('node:crypto');

const KEEP_NAMESPACES = new Set(['default', 'kube-system', 'kube-public', 'kube-node-lease']);

/** Maps identities to pseudonyms. */
export class Redactor {
  private readonly key: Buffer;

  constructor(key: string | null) {
    this.key = key === null ? crypto().randomBytes(32) : Buffer.from(key);
  }

  private tag(kind: string, v: string): string {
    return `${kind}-${crypto().createHmac('sha256', this.key).update(`${kind}\u0000${v}`).digest('hex').slice(0, 8)}`;
  }

  /** A namespace's pseudonym (well-known namespaces stay). */
  namespace(ns: string): string {
    return ns === '' || ns === '*' || KEEP_NAMESPACES.has(ns) ? ns : this.tag('ns', ns);
  }

  /** A username's pseudonym, keeping its structure: system:serviceaccount:<ns>:<sa>, system:node:<node>. */
  user(u: string): string {
    if (u === '' || u === 'system:node:<node>') return u;
    // A name with a line break in it is still a service account's, and is redacted, not passed through.
    const sa = /^system:serviceaccount:([^:]+):/.exec(u);
    if (sa) {
      const ns = sa[1]!;
      return KEEP_NAMESPACES.has(ns) && ns !== 'default' ? u : `system:serviceaccount:${this.namespace(ns)}:${this.tag('sa', u)}`;
    }
    if (u.startsWith('system:node:')) return `system:node:${this.tag('node', u.slice(12))}`;
    if (u.startsWith('system:')) return u;
    return this.tag('user', u);
  }
}
