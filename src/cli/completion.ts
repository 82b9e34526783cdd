/*! `audit-scan completion bash|zsh|fish`: a shell script completing the subcommands, the options (from the same
 * commander commands that parse them, so the two cannot drift), the values of options with a fixed set
 * (`--output`, `--color`, …), directories for `--apf-out` and `--parquet`, and file names for the logs. */

import type { Command } from 'commander';
import { buildProgram } from './program.js';
import { SCAN_OPTIONS } from './options.js';
import { storeCommand } from './commands/store.js';
import { shardCommand } from './commands/partial.js';
import { diffCommand } from './commands/diff.js';
import { COMPLETION_SHELLS, SHARD_COMMANDS, STORE_COMMANDS } from './commands/words.js';


/** What the word after an option is. */
type ValueKind = { t: 'none' } | { t: 'choices'; words: string[] } | { t: 'dir' } | { t: 'file' } | { t: 'text' };

interface Opt {
  short: string | null;
  long: string;
  description: string;
  value: ValueKind;
  repeatable: boolean;
}

/** The subcommands: the store commands and this one; `help` prints --help. */
const SUBCOMMANDS: Array<[string, string]> = [
  ['load', 'stream logs into a DuckDB store'],
  ['sql', 'run SQL over a store'],
  ['export', 'write a store as Parquet'],
  ['scan', 'the scan, over a store (--db)'],
  ['partial', 'scan a share of the inputs into a part (gzip JSON)'],
  ['merge', 'merge parts into the report of one scan'],
  ['diff', 'before and after a change: did the fix work?'],
  ['policy', 'print the audit policy that keeps the evidence'],
  ['completion', 'print a shell completion script'],
  ['help', 'every option'],
  ['version', 'the version'],
];

const DIR_OPTIONS = new Set(['--apf-out', '--parquet']);
const FILE_OPTIONS = new Set(['--db', '--manifest', '--skip-copies']);
const REPEATABLE = new Set(SCAN_OPTIONS.filter((o) => o.repeatable).map((o) => /--[a-z-]+/.exec(o.flags)![0]));

function optionsOf(cmd: Command): Opt[] {
  const out: Opt[] = cmd.options.map((o) => ({
    short: o.short ?? null,
    long: o.long!,
    // the first clause: shells show one short line
    description: o.description.split(/[;(]/)[0]!.trim(),
    value: !(o.required || o.optional) ? { t: 'none' } : o.argChoices ? { t: 'choices', words: [...o.argChoices] } : DIR_OPTIONS.has(o.long!) ? { t: 'dir' } : FILE_OPTIONS.has(o.long!) ? { t: 'file' } : { t: 'text' },
    repeatable: o.variadic || REPEATABLE.has(o.long!),
  }));
  out.push({ short: '-h', long: '--help', description: 'show the help', value: { t: 'none' }, repeatable: false });
  return out;
}

/** The options of the scan ('') and of each subcommand that takes options. */
function contexts(): Array<[string, Opt[]]> {
  const quiet = { writeOut: () => {}, writeErr: () => {} };
  return [['', optionsOf(buildProgram('0', quiet))], ...[...STORE_COMMANDS].map((n): [string, Opt[]] => [n, optionsOf(storeCommand(n))]), ...[...SHARD_COMMANDS].map((n): [string, Opt[]] => [n, optionsOf(shardCommand(n))]), ['diff', optionsOf(diffCommand())]];
}

/** The completion script for `shell`. */
export function completionScript(shell: string): string {
  if (shell === 'bash') return bashScript();
  if (shell === 'zsh') return zshScript();
  return fishScript();
}

const words = (o: Opt): string[] => (o.short === null ? [o.long] : [o.short, o.long]);

function bashScript(): string {
  const ctx = contexts();
  const branch = (name: string, opts: Opt[]): string => {
    const byKind = (pred: (v: ValueKind) => boolean): string[] => opts.filter((o) => pred(o.value)).flatMap(words);
    const lines: string[] = [];
    for (const o of opts.filter((x) => x.value.t === 'choices')) {
      lines.push(`        ${words(o).join('|')}) mapfile -t COMPREPLY < <(compgen -W "${(o.value as { words: string[] }).words.join(' ')}" -- "$cur"); return 0 ;;`);
    }
    const dirs = byKind((v) => v.t === 'dir');
    if (dirs.length > 0) lines.push(`        ${dirs.join('|')}) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return 0 ;;`);
    const files = byKind((v) => v.t === 'file');
    if (files.length > 0) lines.push(`        ${files.join('|')}) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return 0 ;;`);
    const text = byKind((v) => v.t === 'text');
    // a number, a version, a time: nothing to offer, and not a file name either
    if (text.length > 0) lines.push(`        ${text.join('|')}) COMPREPLY=(); return 0 ;;`);
    return [`    ${name === '' ? '*' : name})`, '      case "$prev" in', ...lines, '      esac', `      opts="${opts.flatMap(words).join(' ')}" ;;`].join('\n');
  };
  return `# bash completion for audit-scan and kubectl-audit_scan, made by: audit-scan completion bash
# This shell: source <(audit-scan completion bash)
# Every new shell: audit-scan completion bash > ~/.local/share/bash-completion/completions/audit-scan
_audit_scan_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" sub="" opts=""
  (( COMP_CWORD > 0 )) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  # --output=json: readline splits the word at "="
  if [[ "$cur" == "=" ]]; then cur=""; prev="\${COMP_WORDS[COMP_CWORD-2]}"
  elif [[ "$prev" == "=" ]] && (( COMP_CWORD > 1 )); then prev="\${COMP_WORDS[COMP_CWORD-2]}"; fi
  if (( COMP_CWORD > 1 )); then
    case "\${COMP_WORDS[1]}" in ${[...STORE_COMMANDS].join('|')}|completion) sub="\${COMP_WORDS[1]}" ;; esac
  fi
  if [[ "$sub" == completion ]]; then
    (( COMP_CWORD == 2 )) && mapfile -t COMPREPLY < <(compgen -W "${COMPLETION_SHELLS.join(' ')}" -- "$cur")
    return 0
  fi
  case "$sub" in
${ctx.filter(([n]) => n !== '').map(([n, o]) => branch(n, o)).join('\n')}
${branch('', ctx[0]![1])}
  esac
  if [[ "$cur" == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
  elif [[ -z "$sub" ]] && (( COMP_CWORD == 1 )); then
    mapfile -t COMPREPLY < <(compgen -W "${SUBCOMMANDS.map(([n]) => n).join(' ')}" -- "$cur"; compgen -f -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
  return 0
}
complete -o filenames -F _audit_scan_complete audit-scan kubectl-audit_scan
`;
}

/** Text inside a zsh _arguments description: no brackets, colons or quotes. */
const zshText = (s: string): string => s.replace(/[[\]:'\\]/g, ' ').replace(/\s+/g, ' ').trim();

function zshSpecs(opts: Opt[]): string[] {
  return opts.map((o) => {
    const takes = o.value.t !== 'none';
    const names = o.short === null ? `${o.long}${takes ? '=' : ''}` : `{${o.short}${takes ? '+' : ''},${o.long}${takes ? '=' : ''}}`;
    const exclusive = o.repeatable ? '*' : o.short === null ? '' : `(${o.short} ${o.long})`;
    const arg = o.value.t === 'choices' ? `:value:(${o.value.words.join(' ')})` : o.value.t === 'dir' ? ':directory:_files -/' : o.value.t === 'file' ? ':file:_files' : o.value.t === 'text' ? ':value: ' : '';
    const head = exclusive === '' ? '' : `'${exclusive}'`;
    return `${head}${names}'[${zshText(o.description)}]${arg}'`;
  });
}

function zshScript(): string {
  const ctx = contexts();
  const args = (opts: Opt[], rest: string): string => ['_arguments -s -S', ...zshSpecs(opts), rest].join(' \\\n      ');
  const branches = ctx
    .filter(([n]) => n !== '')
    .map(([n, o]) => `    ${n}) ${args(o, n === 'sql' ? "'1:SQL query: '" : n === 'load' ? "'*:log file:_files'" : '')} ;;`)
    .join('\n');
  return `#compdef audit-scan kubectl-audit_scan
# zsh completion for audit-scan, made by: audit-scan completion zsh
# This shell (after compinit): source <(audit-scan completion zsh)
# Every new shell: audit-scan completion zsh > "\${fpath[1]}/_audit-scan"
_audit_scan() {
  local sub=""
  (( CURRENT > 2 )) && sub=\${words[2]}
  case "$sub" in
    completion) (( CURRENT == 3 )) && _values shell ${COMPLETION_SHELLS.join(' ')}; return ;;
    ${[...STORE_COMMANDS].join('|')}) shift words; (( CURRENT-- )) ;;
    *) sub="" ;;
  esac
  case "$sub" in
${branches}
    *) ${args(ctx[0]![1], "'1: :_audit_scan_first' '*:log file:_files'")} ;;
  esac
}
_audit_scan_first() {
  _alternative 'commands:command:((${SUBCOMMANDS.map(([n, d]) => `${n}\\:"${zshText(d)}"`).join(' ')}))' 'files:log file:_files'
}
if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then
  _audit_scan "$@"
else
  compdef _audit_scan audit-scan kubectl-audit_scan
fi
`;
}

/** Text inside single quotes in fish. */
const fishText = (s: string): string => s.replace(/\\/g, '\\\\').replace(/'/g, "\\'");

function fishScript(): string {
  const ctx = contexts();
  const subs = [...STORE_COMMANDS, 'completion'].join(' ');
  const lines: string[] = [
    '# fish completion for audit-scan, made by: audit-scan completion fish',
    '# This shell: audit-scan completion fish | source',
    '# Every new shell: audit-scan completion fish > ~/.config/fish/completions/audit-scan.fish',
  ];
  for (const cmd of ['audit-scan', 'kubectl-audit_scan']) {
    for (const [n, d] of SUBCOMMANDS) lines.push(`complete -c ${cmd} -n '__fish_use_subcommand' -a ${n} -d '${fishText(d)}'`);
    lines.push(`complete -c ${cmd} -n '__fish_seen_subcommand_from completion' -x -a '${COMPLETION_SHELLS.join(' ')}'`);
    for (const [n, opts] of ctx) {
      const cond = n === '' ? `not __fish_seen_subcommand_from ${subs}` : `__fish_seen_subcommand_from ${n}`;
      for (const o of opts) {
        const flag = `${o.short === null ? '' : `-s ${o.short.slice(1)} `}-l ${o.long.slice(2)}`;
        const value = o.value.t === 'choices' ? ` -x -a '${o.value.words.join(' ')}'` : o.value.t === 'dir' ? " -x -a '(__fish_complete_directories)'" : o.value.t === 'file' ? ' -r -F' : o.value.t === 'text' ? ' -x' : '';
        lines.push(`complete -c ${cmd} -n '${cond}' ${flag}${value} -d '${fishText(o.description)}'`);
      }
    }
  }
  return lines.join('\n') + '\n';
}
