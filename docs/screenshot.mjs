// Makes docs/report.png, the README's picture of the HTML report: the demo incident, its first screen at
// 1100 × 860 in Debian's Chromium. Run after `npm run build`: node docs/screenshot.mjs
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const html = execFileSync(process.execPath, ['bin/audit-scan.js', '-o', 'html', 'fixtures/demo'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
const file = join(mkdtempSync(join(tmpdir(), 'audit-scan-shot-')), 'demo.html');
writeFileSync(file, html);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 1100, height: 860 }, colorScheme: 'light' });
await page.goto(`file://${file}`);
await page.screenshot({ path: join(root, 'docs/report.png') });
await browser.close();
