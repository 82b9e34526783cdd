/*! `audit-scan policy [LOGS]` (issue 47 #2): prints the audit policy that keeps the evidence audit-scan needs and
 * drops the rest; given logs, what the policy would have written of them against what they hold, and what their
 * own policy hides. Wiring only; the rules are in analyze/audit-policy.ts. */

import type { Readable } from 'node:stream';
import { Command } from 'commander';
import { expandSources, openRaw } from '../../input/sources.js';
import { jsonObjectOf, rawLines } from '../../input/raw-lines.js';
import { normalizeAuditEvent } from '../../decode/audit-event.js';
import { PolicyTally, renderPolicyYaml } from '../../analyze/audit-policy.js';
import { parseSubcommand, type CommandName } from '../program.js';
import { formatBytes } from '../../analyze/report.js';
import { formatCount } from '../../model/count-format.js';
import { safeText } from '../../render/text-safety.js';

interface PolicyIO {
  stdin: Readable;
  out: (s: string) => void;
  err: (s: string) => void;
  version: string;
  commandName?: CommandName;
}

export function policyCommand(commandName: string = 'audit-scan'): Command {
  const p = new Command(`${commandName} policy`);
  p.helpOption('-h, --help', 'show this help');
  p.description('Print an audit policy (audit.k8s.io/v1) that keeps what audit-scan needs and drops the rest; with logs, what it would have written of them')
    .argument('[logs...]', 'audit logs (files, directories, gzip, -) to measure the policy against');
  p.addHelpText('after', `\nExamples:\n  ${commandName} policy > audit-policy.yaml\n  ${commandName} policy /var/log/kube-audit/audit.log > audit-policy.yaml   # with the volume it would write\n\ndocs/audit-policy.md\n`);
  return p;
}

export async function runPolicy(argv: string[], io: PolicyIO): Promise<number> {
  const p = policyCommand(io.commandName);
  const parsed = parseSubcommand(p, argv, `${io.commandName ?? 'audit-scan'} policy`, io.out, io.err);
  if (parsed !== null) return parsed;
  const header = [`Made by audit-scan ${io.version} policy (docs/audit-policy.md). Load it with kube-apiserver --audit-policy-file=…`, 'Keeps every list, watch and get at Metadata (the query string is the evidence), TokenRequests at Request (their TTL),', 'the kube-system leases (apiserver restarts); drops heartbeats, health checks and event writes; never a response body.'];
  let failed = false;
  if (p.args.length > 0) {
    const tally = new PolicyTally();
    let long = 0;
    const { sources, problems } = await expandSources(p.args);
    for (const pr of problems) io.err(`audit-scan: ${safeText(pr.name)}: ${pr.message}\n`);
    failed = problems.length > 0;
    for (const src of sources) {
      try {
        for await (const line of rawLines(openRaw(src, io.stdin), () => long++)) {
          const o = jsonObjectOf(line);
          if (o === null) {
            if (line.length > 0) tally.notEvents++;
            continue;
          }
          const e = normalizeAuditEvent(o, () => 'policy');
          if (!e.ok) {
            tally.notEvents++;
            continue;
          }
          tally.add(line.length + 1, o, e.value);
        }
      } catch (err) {
        io.err(`audit-scan: ${safeText(src.name)}: ${(err as Error).message}\n`);
        failed = true;
      }
    }
    const pct = tally.bytes === 0 ? 0 : Math.round((1 - tally.keptBytes / tally.bytes) * 100);
    const measured = [
      '',
      `Measured on ${p.args.map(safeText).join(', ')}: ${formatCount(tally.events)} events, ${formatBytes(tally.bytes)}; under this policy about ${formatCount(tally.keptEvents)} events, ${formatBytes(tally.keptBytes)} (${pct}% less).`,
      ...(tally.notEvents + long > 0 ? [`${formatCount(tally.notEvents + long)} lines were not audit events (etcd, klog; EventList documents and cloud exports are not measured) and are left out of the figures.`] : []),
      ...tally.hides().map((h) => `The log's own policy hides ${h}.`),
      ...tally.wastes().map((w) => `The log's own policy keeps, for no evidence, ${w}.`),
    ];
    header.push(...measured);
    for (const l of measured.slice(1)) io.err(`audit-scan: policy: ${l}\n`);
    if (tally.events === 0) {
      io.err('audit-scan: policy: no audit events in the logs: the policy above is the default one, measured against nothing\n');
      failed = true;
    }
  }
  io.out(renderPolicyYaml(header.map((l) => l.replace(/[\r\n]/g, ' '))));
  return failed ? 1 : 0;
}
