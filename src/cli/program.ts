/*! Builds the commander program from the option table. Public commander API only. */

import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { EXAMPLES, EXIT_CODES, SCAN_OPTIONS } from './options.js';

/** Where commander writes help and errors. */
export interface ProgramIO {
  writeOut(s: string): void;
  writeErr(s: string): void;
}

/** The audit-scan command. Parsing fills `opts()` and `args`; the caller runs the scan. */
export function buildProgram(version: string, io: ProgramIO): Command {
  const p = new Command();
  p.name('audit-scan')
    .description('Find the Kubernetes clients that overload kube-apiserver and etcd, from apiserver audit logs and etcd logs. Reads files, directories, gzip, and - (stdin); audit and etcd lines may be mixed.')
    .version(version, '-V, --version')
    .argument('[files...]', 'audit or etcd logs; - for stdin; directories are read whole')
    .helpOption('-h, --help', 'show this help')
    .exitOverride()
    // 80 columns, words kept whole: the option descriptions wrap beside the longest flag
    .configureHelp({ helpWidth: 80, minWidthToWrap: 20 })
    .configureOutput({ writeOut: io.writeOut, writeErr: io.writeErr, outputError: (s, write) => write(s) })
    .allowExcessArguments(false);
  for (const spec of SCAN_OPTIONS) {
    const opt = new Option(spec.flags, spec.description);
    if (spec.choices) opt.choices(spec.choices);
    if (spec.default !== undefined && typeof spec.default === 'string') opt.default(spec.default);
    if (spec.repeatable) opt.argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]);
    p.addOption(opt);
  }
  p.addHelpText('after', `\n${EXAMPLES}\n\n${demoText()}\n\n${EXIT_CODES}\n`);
  return p;
}

/** Where the bundled demo incident is, as a command to run. */
function demoText(): string {
  const dir = fileURLToPath(new URL('../../fixtures/demo', import.meta.url));
  return `The demo incident (two apiservers' audit logs and an etcd log):\n  audit-scan ${dir}`;
}
