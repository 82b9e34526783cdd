/*! Builds the commander program from the option table. Public commander API only. */

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
    .description('Find the Kubernetes clients that overload kube-apiserver and etcd, from apiserver audit logs and etcd logs.\nReads files, directories, gzip, and - (stdin); audit and etcd lines may be mixed.')
    .version(version, '-V, --version')
    .argument('[files...]', 'audit or etcd logs; - for stdin; directories are read whole')
    .helpOption('-h, --help', 'show this help')
    .exitOverride()
    .configureOutput({ writeOut: io.writeOut, writeErr: io.writeErr, outputError: (s, write) => write(s) })
    .allowExcessArguments(false);
  for (const spec of SCAN_OPTIONS) {
    const opt = new Option(spec.flags, spec.description);
    if (spec.choices) opt.choices(spec.choices);
    if (spec.default !== undefined && typeof spec.default === 'string') opt.default(spec.default);
    if (spec.repeatable) opt.argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]);
    p.addOption(opt);
  }
  p.addHelpText('after', `\n${EXAMPLES}\n\n${EXIT_CODES}\n`);
  return p;
}
