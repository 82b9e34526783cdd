/*! --follow: reads the inputs as they grow (src/scan/follow.ts) and, every --interval, redraws the live view on a
 * terminal or prints one JSON report a line. SIGINT, SIGTERM, `q`, or the end of every input (stdin closed)
 * prints the final report in --output and exits 0. */

import type { Readable } from 'node:stream';
import { Chalk } from 'chalk';
import { ScanState } from '../../aggregate/scan-state.js';
import { buildReport, nothingRead, type ScanReport } from '../../analyze/report.js';
import { expandSources } from '../../input/sources.js';
import { FollowReader } from '../../scan/follow.js';
import { attachEngine } from '../../decode/engine/engine.js';
import { safeText } from '../../render/text-safety.js';
import { formatCount } from '../../model/count-format.js';
import { renderJson } from '../../render/json.js';
import { summarizeDiagnostics } from '../diagnostics.js';
import { renderReport, reportOptionsOf, writeApf } from './scan.js';
import { formatSkip } from '../diagnostics.js';
import type { ScanConfig } from '../config.js';

export interface FollowIO {
  stdin: Readable;
  /** resolves false when the reader went away (EPIPE) */
  write: (s: string) => Promise<boolean>;
  errText: (s: string) => void;
  stdoutIsTTY: boolean;
  /** the terminal's size now (it may change while following) */
  size: () => { columns: number; rows: number };
  /** aborted by SIGINT or SIGTERM */
  signal?: AbortSignal;
  /** where keys come from on a terminal (stdin, or /dev/tty when stdin is the data), or null */
  keys: (NodeJS.ReadStream & { setRawMode?: (on: boolean) => unknown }) | null;
}

const ALT_ON = '\x1b[?1049h\x1b[?25l';
const ALT_OFF = '\x1b[?25h\x1b[?1049l';

/** One report as one JSON line, with the live member; escaped as --output json is. */
function jsonLine(r: ScanReport, live: { final: boolean; readBytes: number }): string {
  const { liveWindow, ...rest } = r;
  return renderJson({ ...rest, live: { final: live.final, window: liveWindow ?? null, readBytes: live.readBytes } }, false);
}

export async function runFollow(cfg: ScanConfig, io: FollowIO, toolVersion: string): Promise<number> {
  const follow = cfg.follow!;
  const { sources, problems } = await expandSources(cfg.files.length === 0 ? ['-'] : cfg.files, { keepMissing: true });
  for (const p of problems) io.errText(`audit-scan: ${safeText(p.name)}: ${p.message}\n`);
  // --verbose names each skipped line by its number in the file, as a plain scan does (one feeder per input)
  const onSkip = cfg.verbose ? (input: string, where: string, reason: string, text: string) => io.errText(formatSkip(input, where, reason, text, cfg.width) + '\n') : null;
  const state = new ScanState(cfg.etcdPrefix, onSkip, cfg.maxGroups, { ...cfg.time, fingerprint: false });
  const engineNote = attachEngine(state, cfg.engine);
  if (engineNote !== null) io.errText(engineNote + '\n');
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  if (io.signal?.aborted) stop.abort();
  io.signal?.addEventListener('abort', onSignal, { once: true });
  const tty = io.stdoutIsTTY;
  // One format a stream: into a pipe, JSON lines (each interval and the final report) unless another --output was
  // asked for, which then comes alone, once, at the end.
  const jsonLines = !tty && (cfg.output === 'json' || !cfg.outputGiven);
  const notes: string[] = [];
  const note = (s: string): void => {
    notes.push(s);
    if (notes.length > 20) notes.shift();
    // on a terminal the view shows the notes; elsewhere stderr says them at once
    if (!tty) io.errText(s + '\n');
  };
  const reader = new FollowReader(state, sources, {
    stdin: io.stdin,
    pollMs: Math.min(250, follow.intervalMs),
    maxLineBytes: cfg.maxLineBytes,
    signal: stop.signal,
    onEvent: (input, e) => {
      const what =
        e.kind === 'waiting'
          ? 'not there yet; waiting for it'
          : e.kind === 'opened'
            ? 'appeared; reading it'
            : e.kind === 'rotated'
              ? 'rotated (a new file in its place): the old one was read to its end, the new one is read from its start'
              : e.kind === 'truncated'
                ? `shrank below the ${formatCount(e.at)} bytes read (copytruncate): read again from its start`
                : e.kind === 'gone'
                  ? 'removed; waiting for it to come back'
                  : `read once, not followed (${e.why})`;
      note(`audit-scan: ${safeText(input)}: ${what}`);
    },
  });
  const reportOptions = reportOptionsOf(cfg, toolVersion);
  const chalk = new Chalk({ level: cfg.color ? 1 : 0 });
  let paused = false;
  let readerGone = false;
  let last: ScanReport | null = null;
  // the live view's width rules load only for a terminal
  const renderLive = tty ? (await import('../../render/live.js')).renderLive : null;
  const draw = (r: ScanReport): Promise<boolean> => {
    const { columns, rows } = io.size();
    const lines = renderLive!(r, r.liveWindow!, { width: Math.max(40, columns), height: Math.max(10, rows), chalk, paused, intervalSeconds: follow.intervalMs / 1000, readBytes: reader.readBytes.n, notes });
    return io.write('\x1b[H' + lines.map((l) => l + '\x1b[K').join('\n') + '\x1b[J');
  };
  const tick = async (): Promise<void> => {
    reader.tick();
    last = buildReport(state, reportOptions);
    if (tty) {
      if (!paused) await draw(last);
    } else if (jsonLines && !(await io.write(jsonLine(last, { final: false, readBytes: reader.readBytes.n })))) {
      readerGone = true;
      stop.abort();
    }
  };
  // keys on a terminal: q quits, p pauses the redraw (reading goes on); raw mode turns Ctrl-C into a key
  const keys = tty ? io.keys : null;
  const onKey = (d: Buffer): void => {
    const k = d.toString('latin1');
    if (k === 'q' || k === 'Q' || k.includes('\x03') || k.includes('\x04')) stop.abort();
    else if (k === 'p' || k === 'P' || k === ' ') {
      paused = !paused;
      if (last !== null) void draw(last);
    }
  };
  if (keys !== null) {
    keys.setRawMode?.(true);
    keys.on('data', onKey);
    keys.resume();
  }
  if (tty) await io.write(ALT_ON);
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    tick().finally(() => (busy = false));
  }, follow.intervalMs);
  try {
    await reader.done;
  } finally {
    clearInterval(timer);
    while (busy) await new Promise((r) => setTimeout(r, 10));
    if (keys !== null) {
      keys.off('data', onKey);
      keys.setRawMode?.(false);
      keys.pause();
      // a /dev/tty opened for the keys would keep the process alive
      if (keys !== (io.stdin as unknown)) keys.destroy();
    }
    if (tty) await io.write(ALT_OFF);
    io.signal?.removeEventListener('abort', onSignal);
  }
  if (readerGone) return 0;
  const report = buildReport(state, reportOptions);
  for (const n of tty ? notes : []) io.errText(n + '\n');
  if (jsonLines) await io.write(jsonLine(report, { final: true, readBytes: reader.readBytes.n }));
  else {
    const { liveWindow: _w, ...plain } = report;
    await io.write(await renderReport(plain, cfg));
  }
  for (const d of summarizeDiagnostics(report)) io.errText(d + '\n');
  const apf = cfg.apfOut === null ? null : writeApf(report, cfg.apfOut);
  if (apf !== null) io.errText(apf.message + '\n');
  if (apf !== null && !apf.ok) return 2;
  if (cfg.strict && report.inputs.some((i) => i.skippedLines + i.skippedItems > 0)) return 1;
  // stopped (Ctrl-C, SIGTERM, q) is the way a follow ends: success
  if (stop.signal.aborted) return 0;
  return nothingRead(report) ? 1 : 0;
}
