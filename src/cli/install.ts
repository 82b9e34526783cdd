/*! Where this audit-scan runs from (the single-file binary, a clone, a global or a project install, npx), so that
 * a hint names a command that works from there: the DuckDB store's package, for one. */

import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isSea } from 'node:sea';

/** How audit-scan was installed, and the directory that matters for it. */
export type Install =
  | { kind: 'binary' }
  | { kind: 'clone'; root: string }
  | { kind: 'npx'; root: string }
  | { kind: 'global'; root: string }
  | { kind: 'project'; root: string; project: string }
  | { kind: 'unknown'; root: string };

/** Where the running audit-scan is. `root` is the package's directory (the one with package.json). */
export function findInstall(): Install {
  if (isSea()) return { kind: 'binary' };
  let root: string;
  try {
    root = realpathSync(fileURLToPath(new URL('../../', import.meta.url))).replace(/[\\/]+$/, '');
  } catch {
    return { kind: 'binary' };
  }
  // `npm i -g .` links the clone, so its real path is the clone: the sources are there, the package has none
  if (existsSync(join(root, 'src', 'cli')) && existsSync(join(root, 'package-lock.json'))) return { kind: 'clone', root };
  if (root.split(sep).includes('_npx')) return { kind: 'npx', root };
  const parent = dirname(root);
  if (basename(parent) === 'node_modules') {
    // <prefix>/lib/node_modules/audit-scan: npm's global layout on Linux and macOS
    if (basename(dirname(parent)) === 'lib') return { kind: 'global', root };
    return { kind: 'project', root, project: dirname(parent) };
  }
  return { kind: 'unknown', root };
}

/** The command that installs `pkg` (name@version) where this audit-scan can import it. */
export function installCommandFor(pkg: string, at: Install = findInstall()): string {
  switch (at.kind) {
    case 'binary':
      return `the single-file binary cannot load native modules: install audit-scan with npm (README "Install"), then ${pkg} next to it`;
    case 'clone':
      // npm ci installs the devDependencies, DuckDB among them
      return `cd ${at.root} && npm ci`;
    case 'npx':
      return `npx -p audit-scan -p ${pkg} audit-scan …`;
    case 'global':
      // a global package resolves its peers from <prefix>/lib/node_modules, where npm install -g puts them
      return `npm install -g ${pkg}`;
    case 'project':
      return `cd ${at.project} && npm install ${pkg}`;
    default:
      return `cd ${at.root} && npm install --no-save ${pkg}`;
  }
}

/** How the user names the installed location in a sentence. */
export function describeInstall(at: Install = findInstall()): string {
  switch (at.kind) {
    case 'binary':
      return 'the single-file binary';
    case 'clone':
      return `a clone in ${at.root}`;
    case 'npx':
      return 'npx';
    case 'global':
      return `a global install in ${at.root}`;
    case 'project':
      return `${at.root}`;
    default:
      return at.root;
  }
}
