// The live view's own lines (issue 21): the footer names the key that undoes a pause, and a log shorter than the
// window says so beside its rate.
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support.js';
import { renderLive } from '../../src/render/live.js';

async function report(): Promise<any> {
  const r = await runCli(['-o', 'json', 'fixtures/demo/apiserver-b-audit.log']);
  return JSON.parse(r.stdout);
}

const window = { seconds: 300, coveredSeconds: 40, from: '2026-11-30T10:00:00.000Z', to: '2026-11-30T10:05:00.000Z', requests: 400, perSecond: 10, nowPerSecond: 10, etcdRequests: 0, etcdShare: null, top: [] };
const opts = (paused: boolean) => ({ width: 120, height: 40, chalk: new Chalk({ level: 0 }), paused, intervalSeconds: 2, readBytes: 1000, notes: [] });

describe('the live view', () => {
  it('says "p pause" while running and "p resume" while paused', async () => {
    const r = await report();
    expect(renderLive(r, window, opts(false)).at(-1)).toBe('q quit (prints the report) · p pause · Ctrl-C quit');
    const paused = renderLive(r, window, opts(true));
    expect(paused.at(-1)).toBe('q quit (prints the report) · p resume · Ctrl-C quit');
    expect(paused[0]).toContain(' · PAUSED');
  });

  it('a log shorter than the window says how much of it the rate is over', async () => {
    const lines = renderLive(await report(), window, opts(false));
    expect(lines[1]).toContain('over the window 10/s (the log covers 40 s of it), 400 requests');
  });
});
