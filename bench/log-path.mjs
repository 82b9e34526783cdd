// Where the generated bench logs live. The name carries a hash of generate.mjs, so a change to the generator
// never times a stale file left in the temp folder by an earlier version.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const hashOf = (f) => createHash('sha256').update(readFileSync(join(here, f))).digest('hex').slice(0, 8);
const version = hashOf('generate.mjs');

/** The plain log of `sizeMb` MB in `dir`; its gzip copy is the same name + ".gz". */
export function benchLogPath(dir, sizeMb) {
  return join(dir, `audit-${sizeMb}m-${version}.log`);
}

/** The apiserver's own log (-v=3) of `sizeMb` MB in `dir`, from generate-apiserver-log.mjs. */
export function benchApiserverLogPath(dir, sizeMb) {
  return join(dir, `apiserver-${sizeMb}m-${hashOf('generate-apiserver-log.mjs')}.log`);
}
