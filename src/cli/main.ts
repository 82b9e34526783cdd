/*! The only module that touches the process: argv, streams, TTY, signals and the exit code.
 * run(argv, io) is what tests call in-process; main() binds it to the real process. */

import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { CommanderError } from 'commander';
import { buildProgram, shortUsage, type CommandName } from './program.js';
import { resolveConfig } from './config.js';
import { runScan } from './commands/scan.js';
import { openSync } from 'node:fs';
import { ReadStream } from 'node:tty';
import { COMPLETION_SHELLS, SHARD_COMMANDS, STORE_COMMANDS } from './commands/words.js';
import { InputError, InterruptedError, UsageError } from '../model/errors.js';

/** The process as run() sees it (kubectl-style IOStreams). */
export interface IO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY?: boolean;
  columns: number | undefined;
  env: Record<string, string | undefined>;
  /** aborted by the first SIGINT: readers stop at once and the report covers what was read */
  signal?: AbortSignal;
  /** the terminal's size now (--follow redraws to it) */
  size?: () => { columns: number; rows: number };
  /** --follow on a terminal: a stream of key presses (stdin, or /dev/tty when stdin carries the log), or null */
  keys?: (stdinIsData: boolean) => (NodeJS.ReadStream & { setRawMode?: (on: boolean) => unknown }) | null;
  /** `kubectl audit-scan` when run as the kubectl plugin: usage and help say so */
  commandName?: CommandName;
}

// Set by the single-file binary's bundler (scripts/build-binary.mjs), which has no package.json beside it.
declare const AUDIT_SCAN_BUNDLED_VERSION: string | undefined;

function toolVersion(): string {
  if (typeof AUDIT_SCAN_BUNDLED_VERSION === 'string') return AUDIT_SCAN_BUNDLED_VERSION;
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    return pkg.version;
  } catch {
    return '0.0.0';
  }
}

const quieted = new WeakSet<Writable>();

/** Writes all of `s`; resolves false on EPIPE (reader went away), throws on other write errors. */
function writeAll(w: Writable, s: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    if (s.length === 0) return resolve(true);
    // The callback reports the error; this listener keeps the stream's 'error' event from being unhandled (one
    // per stream: --follow writes a line every interval).
    if (!quieted.has(w)) {
      quieted.add(w);
      w.on('error', () => {});
    }
    w.write(s, (err) => {
      if (!err) return resolve(true);
      if ((err as NodeJS.ErrnoException).code === 'EPIPE') return resolve(false);
      reject(err);
    });
  });
}

/** Runs audit-scan with `argv` (without node and script) and returns the exit code. */
export async function run(argv: string[], io: IO): Promise<number> {
  const errText = (s: string): void => {
    io.stderr.write(s);
  };
  const version = toolVersion();
  const name = io.commandName ?? 'audit-scan';
  // `audit-scan help` is help, unless a file of that name is there to read
  if (argv.length === 1 && argv[0] === 'help' && !existsSync('help')) argv = ['--help'];
  // `audit-scan version`, as kubectl takes it, is --version, again unless a file of that name is there to read
  if (argv.length === 1 && argv[0] === 'version' && !existsSync('version')) argv = ['--version'];
  if (argv[0] === 'completion') {
    const shell = argv[1];
    if (argv.length !== 2 || shell === undefined || !COMPLETION_SHELLS.includes(shell)) {
      errText(`audit-scan: completion: expected one of ${COMPLETION_SHELLS.join(', ')}, e.g. source <(${name} completion bash)\n`);
      return 2;
    }
    io.stdout.write((await import('./completion.js')).completionScript(shell));
    return 0;
  }
  if (argv.length > 0 && STORE_COMMANDS.has(argv[0]!)) {
    try {
      return await (await import('./commands/store.js')).runStoreCommand(argv, { stdin: io.stdin, out: (s) => io.stdout.write(s), err: errText, env: { stdoutIsTTY: io.stdoutIsTTY, columns: io.columns, env: io.env }, version, signal: io.signal, commandName: name });
    } catch (err) {
      return exitCodeFor(err, errText);
    }
  }
  if (argv[0] === 'policy' && !(argv.length === 1 && existsSync('policy'))) {
    try {
      return await (await import('./commands/policy.js')).runPolicy(argv.slice(1), { stdin: io.stdin, out: (s) => io.stdout.write(s), err: errText, version, commandName: name });
    } catch (err) {
      return exitCodeFor(err, errText);
    }
  }
  if (argv[0] === 'diff') {
    try {
      return await (await import('./commands/diff.js')).runDiff(argv.slice(1), { stdin: io.stdin, out: (s) => io.stdout.write(s), err: errText, env: { stdoutIsTTY: io.stdoutIsTTY, columns: io.columns, env: io.env }, version, commandName: name });
    } catch (err) {
      return exitCodeFor(err, errText);
    }
  }
  if (argv.length > 0 && SHARD_COMMANDS.has(argv[0]!)) {
    try {
      return await (await import('./commands/partial.js')).runShardCommand(argv, { stdin: io.stdin, stdout: io.stdout, stdoutIsTTY: io.stdoutIsTTY, write: (s) => writeAll(io.stdout, s), err: errText, env: { stdoutIsTTY: io.stdoutIsTTY, columns: io.columns, env: io.env }, version, commandName: name });
    } catch (err) {
      return exitCodeFor(err, errText);
    }
  }
  const program = buildProgram(version, { writeOut: (s) => io.stdout.write(s), writeErr: errText }, name);
  try {
    program.parse(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
      return 2;
    }
    throw err;
  }
  let files = program.args;
  try {
    if (files.length === 0) {
      if (io.stdinIsTTY) {
        // a few lines, not the whole --help: the user typed the bare command to see what it is
        errText('audit-scan: no input files and stdin is a terminal\n' + shortUsage(name));
        return 2;
      }
      files = ['-'];
    }
    const cfg = resolveConfig(files, { ...program.opts(), outputGiven: program.getOptionValueSource('output') === 'cli' }, { stdoutIsTTY: io.stdoutIsTTY, columns: io.columns, env: io.env });
    if (cfg.follow !== null) {
      return await (await import('./commands/follow.js')).runFollow(cfg, {
        stdin: io.stdin,
        write: (s) => writeAll(io.stdout, s),
        errText,
        stdoutIsTTY: io.stdoutIsTTY,
        size: () => io.size?.() ?? { columns: cfg.width, rows: 40 },
        signal: io.signal,
        keys: io.stdoutIsTTY ? (io.keys?.(files.includes('-')) ?? null) : null,
      }, version);
    }
    const outcome = await runScan(cfg, io.stdin, errText, version, io.signal, io.stderrIsTTY === true);
    try {
      if (!outcome.unreadable) await writeAll(io.stdout, outcome.stdout);
    } catch (err) {
      errText(`audit-scan: cannot write output: ${(err as Error).message}\n`);
      return 2;
    }
    for (const d of outcome.diagnostics) errText(d + '\n');
    if (outcome.interrupted) {
      errText('audit-scan: interrupted; the figures above cover only what was read\n');
      return 130;
    }
    if (outcome.writeFailed) return 2;
    if (outcome.inputFailed || outcome.nothingRead) return 1;
    if (cfg.strict && outcome.report.inputs.some((i) => i.skippedLines + i.skippedItems > 0)) return 1;
    return 0;
  } catch (err) {
    return exitCodeFor(err, errText);
  }
}

/** Maps a thrown error to its message and exit code: usage 2, input 1, anything else is a bug (2, with stack). */
function exitCodeFor(err: unknown, errText: (s: string) => void): number {
  if (err instanceof UsageError) {
    errText(`audit-scan: ${err.message}\n`);
    return 2;
  }
  if (err instanceof InputError) {
    errText(`audit-scan: ${err.message}\n`);
    return 1;
  }
  if (err instanceof InterruptedError) {
    errText(`audit-scan: ${err.message}\n`);
    return 130;
  }
  errText(`audit-scan: internal error, please report it with the command you ran:\n${(err as Error).stack ?? String(err)}\n`);
  return 2;
}

/** How the process was called: kubectl runs a plugin as the `kubectl-audit_scan` it found on PATH (the npm bin
 * entry, or krew's link to the single-file binary, whose argv[0] is that name). */
export function commandNameOf(argv: readonly string[]): CommandName {
  return argv.slice(0, 2).some((a) => /^kubectl-audit_scan(\.[cm]?js)?$/.test(basename(a))) ? 'kubectl audit-scan' : 'audit-scan';
}

/** Entry point for bin/audit-scan.js, bin/kubectl-audit_scan.js and the single-file binary. */
export function main(opts: { commandName?: CommandName } = {}): void {
  // The first Ctrl-C aborts the reads (a read waiting on a terminal too) and prints what was read; a second one
  // leaves at once.
  const stop = new AbortController();
  process.on('SIGINT', () => {
    if (stop.signal.aborted) process.exit(130);
    stop.abort();
  });
  // --follow runs until told to stop: SIGTERM (kubectl, systemd, timeout) prints the final report too
  const following = process.argv.includes('--follow');
  if (following) process.on('SIGTERM', () => (stop.signal.aborted ? process.exit(143) : stop.abort()));
  // `audit-scan … | head`: the reader left; that is success, not an error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
  });
  run(process.argv.slice(2), {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTTY: process.stdin.isTTY === true,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    columns: process.stdout.columns,
    env: process.env,
    signal: stop.signal,
    commandName: opts.commandName ?? commandNameOf(process.argv),
    size: () => ({ columns: process.stdout.columns ?? 120, rows: process.stdout.rows ?? 40 }),
    keys: (stdinIsData) => {
      if (!stdinIsData && process.stdin.isTTY) return process.stdin;
      try {
        return new ReadStream(openSync('/dev/tty', 'r'));
      } catch {
        return null;
      }
    },
  }).then(
    (code) => {
      process.exitCode = code;
      // A scan whose report and diagnostics are all written leaves at once: Node's own way out frees each page of
      // the heaps and the engines' memories first, which the kernel does at once as the process ends (about 7 ms of
      // a 1 GB scan). Not the other commands: the store's database and the shards' gzip streams close on their
      // own time, and --follow ends on a signal.
      const command = process.argv[2] ?? '';
      const scan = !STORE_COMMANDS.has(command) && !SHARD_COMMANDS.has(command) && command !== 'completion' && !following;
      if (scan && process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit(code);
    },
    (err: unknown) => {
      process.stderr.write(`audit-scan: internal error: ${(err as Error).stack ?? String(err)}\n`);
      process.exitCode = 2;
    },
  );
}
