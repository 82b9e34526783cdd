import { describe, expect, it } from 'vitest';
import { classifyLine } from '../../src/parse/line-kind.js';

describe('classifyLine', () => {
  const ev = '{"kind":"Event"}';
  it.each([
    ['', 'blank', null],
    ['   ', 'blank', null],
    [ev, 'json', ev],
    ['\ufeff' + ev, 'json', ev],
    [`2026-11-30T10:00:00.123456789Z ${ev}`, 'json', ev],
    [`[pod/kube-apiserver-m1/kube-apiserver] ${ev}`, 'json', ev],
    [`[pod/kube-apiserver-m1/kube-apiserver] 2026-11-30T10:00:00.123456789Z ${ev}`, 'json', ev],
    [`master-1 ${ev}`, 'json', ev],
    [`Nov 30 10:00:00 master-1 kube-apiserver[123]: ${ev}`, 'json', ev],
    ['I1130 10:00:00.120345       1 controller.go:615] quota admission added evaluator for: leases', 'other', null],
    ['E1130 10:00:00.120345       1 status.go:71] apiserver received an error {"err": "x"}', 'other', null],
    ['2021-05-14 16:47:40.070062 W | wal: sync duration of 2.004393954s, expected less than 1s', 'capnslog', null],
    ['goroutine 1 [running]:', 'other', null],
    ['panic: assertion failed: Page expected to be: 23, but self identifies as 0', 'other', null],
    ['go.etcd.io/bbolt._assert(...)', 'other', null],
    ['/tmp/etcd-release-3.5.0/etcd/release/etcd/server/main.go:32 +0x45', 'other', null],
    ['garbage here', 'unknown', null],
  ])('%j → %s', (line, kind, text) => {
    const k = classifyLine(line);
    expect(k.kind).toBe(kind);
    if (text !== null && k.kind === 'json') expect(k.text).toBe(text);
  });
});
