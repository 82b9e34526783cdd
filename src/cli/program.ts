/*! Builds the commander program from the option table. Public commander API only. */

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { EXAMPLES, EXIT_CODES, SCAN_OPTIONS } from './options.js';

/** Where commander writes help and errors. */
export interface ProgramIO {
  writeOut(s: string): void;
  writeErr(s: string): void;
}

/** How the user called it: `audit-scan`, or `kubectl audit-scan` through the kubectl plugin. */
export type CommandName = 'audit-scan' | 'kubectl audit-scan';

/** The audit-scan command. Parsing fills `opts()` and `args`; the caller runs the scan. */
export function buildProgram(version: string, io: ProgramIO, name: CommandName = 'audit-scan'): Command {
  const p = new Command();
  p.name(name)
    .description('Find the Kubernetes clients that overload kube-apiserver and etcd, from apiserver audit logs and etcd logs. Reads files, directories, gzip, and - (stdin); audit and etcd lines may be mixed.')
    .version(version, '-V, --version')
    .argument('[files...]', 'audit or etcd logs; - for stdin; directories are read whole')
    .helpOption('-h, --help', 'show this help')
    .exitOverride()
    // 80 columns, words kept whole: the option descriptions wrap beside the longest flag
    .configureHelp({ helpWidth: 80, minWidthToWrap: 20 })
    .configureOutput({ writeOut: io.writeOut, writeErr: io.writeErr, outputError: (s, write) => write(diagnosticOf(s, name)) })
    .allowExcessArguments(false);
  for (const spec of SCAN_OPTIONS) {
    const opt = new Option(spec.flags, spec.description);
    if (spec.choices) opt.choices(spec.choices);
    if (spec.default !== undefined && typeof spec.default === 'string') opt.default(spec.default);
    if (spec.repeatable) opt.argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]);
    p.addOption(opt);
  }
  const demo = demoText(name);
  p.addHelpText('after', `\n${asCommand(EXAMPLES, name)}\n\n${demo === null ? '' : `${demo}\n\n`}${EXIT_CODES}\n`);
  return p;
}

/** Commander's own error ("error: unknown option '--ouput'\n(Did you mean --output?)") as one diagnostic line
 * in the form of every other: "audit-scan: unknown option '--ouput' (Did you mean --output?); see <name> --help",
 * where `name` is the command whose help lists the options (`audit-scan sql`, `kubectl audit-scan`). */
export function diagnosticOf(commanderText: string, name: string = 'audit-scan'): string {
  const text = commanderText.replace(/^error: /, '').trim().split('\n').map((l) => l.trim()).filter((l) => l.length > 0).join(' ');
  return `audit-scan: ${text}; see ${name} --help\n`;
}

/** The few lines printed when there is nothing to read (no file, stdin a terminal): not the whole --help. */
export function shortUsage(name: CommandName = 'audit-scan'): string {
  return [
    `Usage: ${name} [options] [files...]`,
    `  ${name} audit.log etcd.log                 audit and etcd logs: files, directories, .gz`,
    `  kubectl logs -n kube-system etcd-m1 | ${name} - audit.log`,
    `  ${name} -o json|markdown|html logs/        other formats (default: a table)`,
    `Every option, examples and exit codes: ${name} --help`,
    '',
  ].join('\n');
}

/** Rewrites `audit-scan …` command lines of a help text as `kubectl audit-scan …` for the kubectl plugin. */
export function asCommand(text: string, name: CommandName): string {
  if (name === 'audit-scan') return text;
  return text.replace(/(^ {2}|\| )audit-scan(?= )/gm, `$1${name}`);
}

/** Where the bundled demo incident is, as a command to run; null when it is not there (the single-file binary). */
function demoText(name: CommandName): string | null {
  let dir: string;
  try {
    dir = fileURLToPath(new URL('../../fixtures/demo', import.meta.url));
  } catch {
    return null; // bundled: import.meta.url is not a file URL
  }
  if (!existsSync(dir)) return null;
  return `The demo incident (two apiservers' audit logs and an etcd log):\n  ${name} ${dir}`;
}

/** Parses a subcommand's own arguments, commander's errors written as audit-scan diagnostics (`label` names the
 * command in them). Returns null when it parsed, else the exit code: 0 after --help, 2 for a usage error. */
export function parseSubcommand(p: Command, args: string[], label: string, out: (s: string) => void, err: (s: string) => void): number | null {
  p.exitOverride().configureOutput({ writeOut: out, writeErr: err, outputError: (s, w) => w(diagnosticOf(s, label)) });
  try {
    p.parse(args, { from: 'user' });
    return null;
  } catch (e) {
    const code = (e as { code?: string }).code;
    return code === 'commander.helpDisplayed' || code === 'commander.help' ? 0 : 2;
  }
}

/** Adds to a subcommand the scan options whose long flag is in `flags`, as the scan defines them (SCAN_OPTIONS):
 * the same text, choices, defaults and repeatability everywhere. */
export function addScanOptions(p: Command, flags: ReadonlySet<string>): void {
  for (const o of SCAN_OPTIONS) {
    if (!flags.has(/--[a-z-]+/.exec(o.flags)![0])) continue;
    const opt = new Option(o.flags, o.description);
    if (o.choices) opt.choices(o.choices);
    if (typeof o.default === 'string') opt.default(o.default);
    if (o.repeatable) opt.argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]);
    p.addOption(opt);
  }
}
