/*! Follows a growing log file the way `tail -F` does: what is there, then what is appended; a file that does not
 * exist yet is waited for; rename-and-create rotation (logrotate's default, kube-apiserver's own
 * --audit-log-maxsize) finishes the old file, then reads the new one from its start; copytruncate (a file that
 * shrinks) is read again from its start. Polls with fstat/stat, so it works on every file system, including the
 * network and overlay mounts that inotify misses. Reads at most CHUNK bytes at a time: memory does not grow with
 * how much was appended between two polls. */

import { promises as fsp, type Stats } from 'node:fs';

const CHUNK = 4 << 20;

/** What happened to a followed file, for a note on stderr. */
export type FollowEvent = { kind: 'waiting' } | { kind: 'opened' } | { kind: 'rotated' } | { kind: 'truncated'; at: number } | { kind: 'gone' };

export interface FollowOptions {
  /** between two looks at the file, in ms */
  pollMs: number;
  /** stops following: what is in the file by then is still read, then the iterator ends */
  signal: AbortSignal;
  onEvent?: (e: FollowEvent) => void;
}

const sameFile = (a: Stats, b: Stats): boolean => a.ino === b.ino && a.dev === b.dev;

async function statOrNull(path: string): Promise<Stats | null> {
  try {
    return await fsp.stat(path);
  } catch {
    return null;
  }
}

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The bytes of `path` as it grows, until `o.signal` aborts. */
export async function* followFile(path: string, o: FollowOptions): AsyncGenerator<Buffer> {
  let fh: fsp.FileHandle | null = null;
  let opened: Stats | null = null;
  let pos = 0;
  let waitedSaid = false;
  const buf = Buffer.alloc(CHUNK);
  /** Reads what the open file holds past `pos`, in chunks. */
  async function* drain(): AsyncGenerator<Buffer> {
    for (;;) {
      const { bytesRead } = await fh!.read(buf, 0, CHUNK, pos);
      if (bytesRead === 0) return;
      pos += bytesRead;
      yield Buffer.from(buf.subarray(0, bytesRead));
    }
  }
  try {
    for (;;) {
      const stopping = o.signal.aborted;
      if (fh === null) {
        const st = await statOrNull(path);
        if (st !== null && st.isFile()) {
          fh = await fsp.open(path, 'r').catch(() => null);
          if (fh !== null) {
            opened = await fh.stat();
            pos = 0;
            if (waitedSaid) o.onEvent?.({ kind: 'opened' });
          }
        } else if (!waitedSaid) {
          waitedSaid = true;
          o.onEvent?.({ kind: 'waiting' });
        }
      }
      if (fh !== null) {
        const now = await fh.stat();
        if (now.size < pos) {
          // copytruncate: the file was emptied in place and may have been written again since
          o.onEvent?.({ kind: 'truncated', at: pos });
          pos = 0;
        }
        yield* drain();
        const named = await statOrNull(path);
        if (named === null || !sameFile(named, opened!)) {
          // rotated (renamed away, a new file in its place) or removed: finish the old file, then wait for the new
          yield* drain();
          await fh.close();
          fh = null;
          opened = null;
          o.onEvent?.(named === null ? { kind: 'gone' } : { kind: 'rotated' });
          waitedSaid = named === null;
          if (named !== null) continue; // open the new file at once
        }
      }
      if (stopping) return;
      await sleep(o.pollMs, o.signal);
    }
  } finally {
    await fh?.close().catch(() => {});
  }
}
