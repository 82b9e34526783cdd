#!/usr/bin/env node
// npm run bench [-- --size 1024] [--big] [--runs 3] [--dir /tmp/audit-scan-bench] [--no-load] [--no-apiserver-log]
// Generates deterministic audit logs (plain and gzip) and an apiserver log (-v=3) of the same size and mix, checks
// that audit-scan, jq and DuckDB agree on the list-groups table (and audit-scan and grep on the apiserver log's
// lists by user agent), then times them alternately (median of --runs) and writes bench/results.json.
// Timing lives here only: no test fails because a machine is slow.
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { benchApiserverLogPath, benchLogPath } from './log-path.mjs';
import { createGunzip, createGzip } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? dflt : process.argv[i + 1];
};
const sizeMb = process.argv.includes('--big') ? 10240 : Number(arg('size', 1024));
const runs = Number(arg('runs', 3));
const dir = arg('dir', join(tmpdir(), 'audit-scan-bench'));
mkdirSync(dir, { recursive: true });
const plain = benchLogPath(dir, sizeMb);
const gz = `${plain}.gz`;
// the apiserver's own log at -v=3 (issue 45), the same size and traffic mix; --no-apiserver-log leaves it out
const klogOn = !process.argv.includes('--no-apiserver-log');
const klog = benchApiserverLogPath(dir, sizeMb);
const hasTime = existsSync('/usr/bin/time');
const hasJq = spawnSync('jq', ['--version']).status === 0;

function sh(cmd, args, { stdout = 'pipe' } = {}) {
  return new Promise((resolve, reject) => {
    const full = hasTime ? ['/usr/bin/time', ['-f', '%e %M', cmd, ...args]] : [cmd, args];
    const t0 = process.hrtime.bigint();
    const child = spawn(full[0], full[1], { cwd: root, stdio: ['ignore', stdout, 'pipe'] });
    let out = '';
    let err = '';
    child.stdout?.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      const m = /(\d+\.\d+) (\d+)\s*$/.exec(err);
      resolve({ code, out, err, seconds: m ? Number(m[1]) : wall, rssMb: m ? Math.round(Number(m[2]) / 1024) : null });
    });
  });
}

async function generate() {
  if (!existsSync(plain)) {
    console.error(`generating ${plain} (${sizeMb} MB)…`);
    const r = spawnSync(process.execPath, [join(here, 'generate.mjs'), plain, String(sizeMb)], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('generate failed');
  }
  if (klogOn && !existsSync(klog)) {
    console.error(`generating ${klog} (${sizeMb} MB)…`);
    const r = spawnSync(process.execPath, [join(here, 'generate-apiserver-log.mjs'), klog, String(sizeMb)], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('generate-apiserver-log failed');
  }
  if (!existsSync(gz)) {
    console.error(`compressing ${gz}…`);
    await pipeline(createReadStream(plain), createGzip({ level: 6 }), createWriteStream(gz));
  }
}

const JQ = 'select(.stage=="ResponseComplete" and .verb=="list") | [.userAgent, (if (.user.username|startswith("system:node:")) then "system:node:<node>" else .user.username end), .objectRef.resource, ((.requestURI|capture("fieldSelector=(?<f>[^&]*)").f // "") | gsub("spec.nodeName%3D[^&,]*";"spec.nodeName=<node>")), (if (.requestURI|test("[?&]resourceVersion=")) then "rv" else "norv" end)] | @tsv';

// What users run on the apiserver's log today: the list lines by user agent.
const GREP_AWK = `grep '"HTTP" verb="LIST"' FILE | awk -F'userAgent="' '{split($2, a, "\\""); print a[1]}' | sort | uniq -c`;

const tools = {
  'grep, awk, sort, uniq -c': (f) => sh('sh', ['-c', GREP_AWK.replace('FILE', f)]),
  'audit-scan': (f) => sh(process.execPath, ['bin/audit-scan.js', '-o', 'json', '--top', '1000', f]),
  'audit-scan -j1': (f) => sh(process.execPath, ['bin/audit-scan.js', '-o', 'json', '--top', '1000', '-j', '1', f]),
  'audit-scan --engine js': (f) => sh(process.execPath, ['bin/audit-scan.js', '-o', 'json', '--top', '1000', '--engine', 'js', f]),
  duckdb: (f) => sh(process.execPath, [join(here, 'duckdb-query.mjs'), f]),
  jq: (f) => sh('sh', ['-c', `jq -r '${JQ}' ${f} | sort | uniq -c`]),
  'audit-scan load': (f) => {
    rmSync(join(dir, 'bench-load.duckdb'), { force: true });
    rmSync(join(dir, 'bench-load.duckdb.wal'), { force: true });
    return sh(process.execPath, ['bin/audit-scan.js', 'load', '--db', join(dir, 'bench-load.duckdb'), f]);
  },
  'duckdb CTAS read_json': (f) => {
    rmSync(join(dir, 'bench-ctas.duckdb'), { force: true });
    rmSync(join(dir, 'bench-ctas.duckdb.wal'), { force: true });
    return sh(process.execPath, [join(here, 'duckdb-query.mjs'), '--ctas', f, join(dir, 'bench-ctas.duckdb')]);
  },
  'zlib inflate': (f) => sh(process.execPath, ['-e', `const z=require('zlib'),fs=require('fs');fs.createReadStream(${JSON.stringify(f)}).pipe(z.createGunzip({chunkSize:1<<20})).on('data',()=>{}).on('end',()=>{})`]),
};

/** Each tool's answer as "ua|user|resource|selector" → [requests, withoutRv]. */
function groupsOf(name, r) {
  const m = new Map();
  if (name.startsWith('audit-scan')) {
    for (const g of JSON.parse(r.out).listGroups) m.set(`${g.userAgent}|${g.username}|${g.resource}|${g.selector}`, [g.requests, g.withoutResourceVersion]);
  } else if (name === 'duckdb') {
    for (const g of JSON.parse(r.out)) m.set(`${g.user_agent}|${g.username}|${g.resource}|${g.selector}`, [Number(g.requests), Number(g.without_rv)]);
  } else if (name === 'jq') {
    for (const line of r.out.trim().split('\n')) {
      const mm = /^\s*(\d+) (.*)$/.exec(line);
      if (!mm) continue;
      const [ua, user, res, sel, rv] = mm[2].split('\t');
      const k = `${ua}|${user}|${res}|${sel}`;
      const v = m.get(k) ?? [0, 0];
      v[0] += Number(mm[1]);
      if (rv === 'norv') v[1] += Number(mm[1]);
      m.set(k, v);
    }
  }
  return m;
}

let lines = null;
/** The lines of the plain log (what DuckDB's CTAS must load, every one). */
function lineCount() {
  if (lines !== null) return lines;
  const b = readFileSync(plain);
  lines = 0;
  for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) lines++;
  return lines;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  await generate();
  const cases = [
    ['audit-scan', plain],
    ['audit-scan -j1', plain],
    ['audit-scan --engine js', plain],
    ['duckdb', plain],
    ...(hasJq ? [['jq', plain]] : []),
    ['audit-scan', gz],
    ['duckdb', gz],
    ['zlib inflate', gz],
    ...(process.argv.includes('--no-load') ? [] : [['audit-scan load', plain], ['duckdb CTAS read_json', plain]]),
  ];
  // Correctness first: a fast wrong answer is a failure.
  const answers = {};
  if (klogOn) {
    // on the apiserver log: list requests by user agent, audit-scan's (its list groups summed) and grep's
    const a = await tools['audit-scan'](klog);
    const g = await tools['grep, awk, sort, uniq -c'](klog);
    if (a.code !== 0 || g.code !== 0) throw new Error(`the apiserver log: audit-scan exit ${a.code}, grep exit ${g.code}: ${a.err.slice(-300)}`);
    const byUa = new Map();
    for (const x of JSON.parse(a.out).listGroups) byUa.set(x.userAgent, (byUa.get(x.userAgent) ?? 0) + x.requests);
    const want = new Map(g.out.trim().split('\n').map((l) => /^\s*(\d+) (.*)$/.exec(l)).filter(Boolean).map((m) => [m[2], Number(m[1])]));
    const sa = JSON.stringify([...byUa].sort());
    const sg = JSON.stringify([...want].sort());
    if (sa !== sg) {
      console.error(`DISAGREE on the apiserver log: audit-scan ${sa}\ngrep ${sg}`);
      process.exit(1);
    }
    console.error(`the apiserver log: audit-scan and grep agree on ${want.size} user agents' lists`);
    cases.push(['audit-scan', klog], ['grep, awk, sort, uniq -c', klog]);
  }
  for (const [name, f] of cases) {
    if (f === klog) continue;
    if (name === 'zlib inflate' || name === 'audit-scan load' || name === 'duckdb CTAS read_json') continue;
    const r = await tools[name](f);
    if (r.code !== 0) throw new Error(`${name} ${f} failed: ${r.err.slice(-500)}`);
    answers[`${name} ${f === gz ? 'gz' : 'plain'}`] = groupsOf(name, r);
  }
  const [refName, ref] = Object.entries(answers)[0];
  for (const [name, m] of Object.entries(answers)) {
    const a = JSON.stringify([...ref.entries()].sort());
    const b = JSON.stringify([...m.entries()].sort());
    if (a !== b) {
      console.error(`DISAGREE: ${name} vs ${refName}\n${b}\n${a}`);
      process.exit(1);
    }
  }
  console.error(`all ${Object.keys(answers).length} answers agree on ${ref.size} list groups`);
  const times = new Map();
  for (let i = 0; i < runs; i++) {
    for (const [name, f] of cases) {
      const r = await tools[name](f);
      const k = `${name} (${f === gz ? 'gzip' : f === klog ? 'apiserver log' : 'plain'})`;
      // A failed run is no time: DuckDB's CTAS ran out of its memory limit on the log with bodies and was timed
      // as a 1 s success before this check.
      if (r.code !== 0) throw new Error(`${k} failed (exit ${r.code}): ${r.err.slice(-500)}`);
      if (name === 'duckdb CTAS read_json') {
        const rows = JSON.parse(r.out).rows;
        if (rows !== lineCount()) throw new Error(`${k} loaded ${rows} rows of ${lineCount()} lines`);
      }
      if (!times.has(k)) times.set(k, []);
      times.get(k).push(r);
      console.error(`run ${i + 1}/${runs} ${k}: ${r.seconds.toFixed(2)} s`);
    }
  }
  const bytes = statSync(plain).size;
  const rows = [...times.entries()].map(([k, rs]) => {
    const s = median(rs.map((r) => r.seconds));
    const b = k.endsWith('(apiserver log)') ? statSync(klog).size : bytes;
    return { tool: k, medianSeconds: s, mbPerSecond: Math.round(b / 1e6 / s), peakRssMb: Math.max(...rs.map((r) => r.rssMb ?? 0)) || null };
  });
  const get = (k) => rows.find((r) => r.tool === k)?.medianSeconds;
  const ratios = {
    'audit-scan vs jq (plain)': get('jq (plain)') ? +(get('jq (plain)') / get('audit-scan (plain)')).toFixed(2) : null,
    'audit-scan vs duckdb (plain)': +(get('duckdb (plain)') / get('audit-scan (plain)')).toFixed(2),
    'audit-scan vs duckdb (gzip)': +(get('duckdb (gzip)') / get('audit-scan (gzip)')).toFixed(2),
    'audit-scan gzip / zlib inflate alone': +(get('audit-scan (gzip)') / get('zlib inflate (gzip)')).toFixed(2),
    'audit-scan 2 threads vs 1 thread': +(get('audit-scan -j1 (plain)') / get('audit-scan (plain)')).toFixed(2),
    'audit-scan load / DuckDB CTAS read_json': get('audit-scan load (plain)') ? +(get('audit-scan load (plain)') / get('duckdb CTAS read_json (plain)')).toFixed(2) : null,
    'audit-scan on the apiserver log vs grep, awk, sort, uniq -c': get('audit-scan (apiserver log)') ? +(get('grep, awk, sort, uniq -c (apiserver log)') / get('audit-scan (apiserver log)')).toFixed(2) : null,
    'audit-scan MB/s, apiserver log / audit log': get('audit-scan (apiserver log)') ? +(rows.find((r) => r.tool === 'audit-scan (apiserver log)').mbPerSecond / rows.find((r) => r.tool === 'audit-scan (plain)').mbPerSecond).toFixed(2) : null,
    'compiled engine vs JavaScript only (plain, 2 threads)': +(get('audit-scan --engine js (plain)') / get('audit-scan (plain)')).toFixed(2),
  };
  const result = { date: new Date().toISOString(), machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version }, inputBytes: bytes, gzipBytes: statSync(gz).size, runs, rows, ratios, note: 'ratio > 1 means audit-scan is faster' };
  writeFileSync(join(here, 'results.json'), JSON.stringify(result, null, 2) + '\n');
  console.log(`\n${(bytes / 1e6).toFixed(0)} MB of audit JSON lines (gzip ${(statSync(gz).size / 1e6).toFixed(0)} MB), ${cpus().length} cores, median of ${runs}\n`);
  console.log('| tool | median [s] | MB/s | peak RSS [MB] |\n| --- | ---: | ---: | ---: |');
  for (const r of rows) console.log(`| ${r.tool} | ${r.medianSeconds.toFixed(2)} | ${r.mbPerSecond} | ${r.peakRssMb ?? '–'} |`);
  console.log('');
  for (const [k, v] of Object.entries(ratios)) console.log(`${k}: ${v ?? 'n/a'}×`);
  console.log(`\nwritten: bench/results.json`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
