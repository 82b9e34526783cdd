// A range one lane reads and another cuts (src/segment/range-cut.ts): the rules, one step at a time, and then a
// real worker claiming reads while this thread cuts, where every byte must be read by exactly one side.
import { describe, expect, it } from 'vitest';
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { claim, claimedAndEnd, close, cutAt, newRangeCut, unclaimed } from '../../src/segment/range-cut.js';
import { ROOT } from '../support.js';

describe('range-cut: claims and cuts', () => {
  it('a claim stops at the end, and at the claim once done', () => {
    const c = newRangeCut(100, 250, true);
    expect(claim(c, 100, 64)).toBe(164);
    expect(unclaimed(c)).toBe(86);
    expect(claim(c, 164, 64)).toBe(228);
    expect(claim(c, 228, 64)).toBe(250);
    expect(claim(c, 250, 64)).toBe(250);
    expect(close(c, 250)).toBe(true);
  });
  it.each([
    // [claimed so far, cut at, end given, taken]
    [120, 200, 250, true],
    [200, 200, 250, true], // at the claim: the lane's next claim stops there
    [201, 200, 250, false], // the lane read past it
    [120, 250, 250, false], // nothing after it
    [120, 260, 250, false],
    [120, 200, 240, false], // the end moved (another cut) since it was read
  ])('claimed %i, cut at %i of end %i: taken %s', (claimed, at, end, taken) => {
    const c = newRangeCut(100, 250, true);
    claim(c, 100, claimed - 100);
    const last = cutAt(c, at, end);
    if (!taken) {
      expect(last).toBeNull();
      expect(claimedAndEnd(c)).toEqual({ claimed, end: 250 });
      return;
    }
    // the part cut away is the input's last now, and this one ends at the cut
    expect(last).toBe(true);
    expect(claimedAndEnd(c)).toEqual({ claimed, end: at });
    expect(claim(c, claimed, 1000)).toBe(at);
    expect(close(c, at)).toBe(false);
  });
  it('a range not the last passes that on', () => {
    const c = newRangeCut(0, 100, false);
    expect(cutAt(c, 50, 100)).toBe(false);
  });
  it('once closed, nothing is cut (a stop or a failed read leaves the rest unread)', () => {
    const c = newRangeCut(0, 100, true);
    claim(c, 0, 10);
    expect(close(c, 10)).toBe(true);
    expect(cutAt(c, 50, 100)).toBeNull();
    expect(unclaimed(c)).toBe(0);
  });
});

describe('range-cut: a worker claims while this thread cuts', () => {
  // Many small ranges, each read by the worker a few bytes a claim; this thread waits until the worker has claimed
  // part of one and then cuts it just past the claim, where the two race. Every byte of each range must be read
  // by one side, once: the part before the cut by the worker, the part after by this thread. Each round starts when
  // this thread says so (go[r]), and the worker, once it has claimed 40 bytes, goes on only when this thread has
  // seen that (seen[r]) and is about to cut: so the two race in every round whatever else the cores run. Without
  // the two signals a loaded machine let the worker read whole rounds before this thread looked: 0 cuts in 3,000
  // rounds with a mutation run beside it.
  it('every byte is claimed by one side, once', async () => {
    const ROUNDS = 3000;
    const LEN = 400;
    const cuts = Array.from({ length: ROUNDS }, () => newRangeCut(0, LEN, true));
    const go = new Int32Array(new SharedArrayBuffer(ROUNDS * 4));
    const seen = new Int32Array(new SharedArrayBuffer(ROUNDS * 4));
    const url = pathToFileURL(join(ROOT, 'dist/segment/range-cut.js')).href;
    const src = `
      const { parentPort, workerData } = require('node:worker_threads');
      import(${JSON.stringify(url)}).then(({ claim, close }) => {
        const out = [];
        const { cuts, go, seen } = workerData;
        parentPort.postMessage('ready');
        for (let r = 0; r < cuts.length; r++) {
          const c = cuts[r];
          Atomics.wait(go, r, 0);
          let at = 0, k = 0;
          for (;;) {
            if (at >= 40) while (Atomics.load(seen, r) === 0);
            const to = claim(c, at, 1 + (k++ % 3));
            if (to <= at) break;
            at = to;
          }
          out.push(at, close(c, at) ? 1 : 0);
        }
        parentPort.postMessage(out);
      });`;
    const w = new Worker(src, { eval: true, workerData: { cuts, go, seen } });
    // the worker's first message says it is ready (its module loaded): only then do the rounds start
    const ready = new Promise<void>((res, rej) => {
      w.once('message', () => res());
      w.once('error', rej);
    });
    await ready;
    const done = new Promise<number[]>((res, rej) => {
      w.once('message', res);
      w.once('error', rej);
    });
    const mine: Array<number | null> = [];
    for (let r = 0; r < ROUNDS; r++) {
      const c = cuts[r]!;
      Atomics.store(go, r, 1);
      Atomics.notify(go, r);
      let taken: number | null = null;
      // (no cap on the spins: the worker reads every round to its end, so each round ends; a cap let a descheduled
      // worker miss rounds)
      for (;;) {
        const { claimed, end } = claimedAndEnd(c);
        if (end === claimed) break; // read whole (or closed) before a cut was taken
        if (claimed < 40) continue;
        Atomics.store(seen, r, 1);
        const at = claimed + (r % 3);
        if (at >= end) break;
        if (cutAt(c, at, end) !== null) {
          taken = at;
          break;
        }
      }
      mine.push(taken);
    }
    const out = await done;
    await w.terminate();
    let cutsTaken = 0;
    for (let r = 0; r < ROUNDS; r++) {
      const reached = out[2 * r]!;
      const lastKept = out[2 * r + 1] === 1;
      const at = mine[r]!;
      if (at === null) {
        expect([r, reached, lastKept]).toEqual([r, LEN, true]);
      } else {
        cutsTaken++;
        // the worker read [0, at) and stopped there; [at, LEN) is this thread's
        expect([r, reached, lastKept]).toEqual([r, at, false]);
      }
    }
    expect(cutsTaken).toBeGreaterThan(ROUNDS / 10);
  });
});
