// The HTML report in a real browser: Debian's Chromium, headless, driven by playwright-core (it cannot download
// a browser here). The charts render, the page makes no request and logs no error, it never scrolls sideways at
// 1280 or 420 px, the APF YAML keeps its line breaks, and a hostile user agent is text. Screenshots go to
// test/artifacts/ (not committed). Skipped where Chromium is missing, except in CI (.ci/run installs it).
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ROOT, runCli } from '../support.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const have = existsSync(CHROMIUM);
if (!have && process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium`);
const ARTIFACTS = join(ROOT, 'test', 'artifacts');
const dir = mkdtempSync(join(tmpdir(), 'audit-scan-html-'));

async function page(args: string[], name: string): Promise<string> {
  const r = await runCli([...args, '-o', 'html']);
  expect(r.code).toBe(0);
  const file = join(dir, `${name}.html`);
  writeFileSync(file, r.stdout);
  return file;
}

describe.skipIf(!have)('the HTML report in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);
  afterAll(async () => browser?.close());

  async function open(file: string, width: number) {
    const p = await browser.newPage({ viewport: { width, height: 900 } });
    const errors: string[] = [];
    const requests: string[] = [];
    p.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    p.on('pageerror', (e) => errors.push(String(e)));
    p.on('request', (r) => requests.push(r.url()));
    await p.goto(`file://${file}`);
    return { p, errors, requests };
  }

  it.each([1280, 420])('the demo at %i px: charts drawn, no request, no error, no sideways scroll', async (width) => {
    const file = await page(['fixtures/demo'], 'demo');
    const { p, errors, requests } = await open(file, width);
    const charts = await p.$$eval('figure.chart svg', (svgs) =>
      svgs.map((s) => ({ series: Number(s.getAttribute('data-series')), w: s.getBoundingClientRect().width, h: s.getBoundingClientRect().height, marks: s.querySelectorAll('path, rect, line').length })),
    );
    // the request rate of the 6 top series (all requests and the top 5 groups), and read against returned (two
    // series: read and returned, for vector's group), and each apiserver's rate (a and b) under the first
    expect(charts.map((c) => c.series)).toEqual([6, 2, 2]);
    for (const c of charts) expect(c.w).toBeGreaterThan(200);
    // the rate charts: lines and grid; one bar each for what vector's lists read and returned
    expect(charts[0]!.h).toBeGreaterThan(100);
    expect(charts[0]!.marks).toBeGreaterThan(5);
    expect(charts[1]!.h).toBeGreaterThan(100);
    expect(charts[1]!.marks).toBeGreaterThanOrEqual(5); // the grid (the demo has no restart to shade)
    expect(charts[2]!.h).toBeGreaterThan(20);
    expect(charts[2]!.marks).toBe(2);
    expect(await p.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
    expect(requests).toEqual([`file://${file}`]);
    await p.screenshot({ path: join(ARTIFACTS, `demo-${width}.png`), fullPage: true });
    await p.close();
  });

  it('the APF manifests keep their line breaks, ready for kubectl apply -f -', async () => {
    const { p } = await open(await page(['fixtures/demo'], 'demo'), 1280);
    const yaml = await p.$eval('details pre', (el) => el.textContent ?? '');
    const lines = yaml.split('\n');
    expect(lines.length).toBeGreaterThan(30);
    expect(lines).toContain('kind: FlowSchema');
    expect(lines).toContain('kind: PriorityLevelConfiguration');
    expect(lines).toContain('---');
    expect(yaml).not.toContain('\\x0a');
    await p.close();
  });

  it('a hostile user agent and username are text: no element, no script, no link made of them', async () => {
    const { p, errors, requests } = await open(await page(['fixtures/audit/hostile-strings.jsonl'], 'hostile'), 1280);
    expect(await p.evaluate(() => ({ scripts: document.scripts.length, imgs: document.images.length, links: document.links.length }))).toEqual({ scripts: 0, imgs: 0, links: 0 });
    const text = await p.evaluate(() => document.body.innerText);
    expect(text).toContain('<img src=x onerror=alert(1)>');
    // the whole user agent is the client cell's title: text too
    const titles = await p.$$eval('[title]', (els) => els.map((e) => e.getAttribute('title') ?? ''));
    expect(titles.some((t) => t.includes('<script>'))).toBe(true);
    expect(errors).toEqual([]);
    expect(requests).toHaveLength(1);
    await p.close();
  });

  it('token waves get their own chart', async () => {
    const { p } = await open(await page(['fixtures/time/token-waves.log'], 'tokens'), 1280);
    const captions = await p.$$eval('figure.chart figcaption', (els) => els.map((e) => e.textContent));
    expect(captions).toContain('TokenRequests per second: 3 waves, every 2881.4 s; next expected 2026-11-30 14:24:13 UTC');
    await p.screenshot({ path: join(ARTIFACTS, 'tokens-1280.png'), fullPage: true });
    await p.close();
  });

  it('prints: the collapsed APF block opens on paper, the tables do not scroll', async () => {
    const { p } = await open(await page(['fixtures/demo'], 'demo'), 1280);
    await p.emulateMedia({ media: 'print' });
    const visible = await p.$eval('details pre', (el) => el.getBoundingClientRect().height);
    expect(visible).toBeGreaterThan(100);
    const pdf = await p.pdf({ format: 'A4' });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    writeFileSync(join(ARTIFACTS, 'demo.pdf'), pdf);
    await p.close();
  });
});
