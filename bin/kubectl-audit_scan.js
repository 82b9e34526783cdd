#!/usr/bin/env node
// The kubectl plugin: kubectl runs an executable named kubectl-audit_scan found on PATH as `kubectl audit-scan`.
// It starts as bin/audit-scan.js does: the workers argv will need first, the interrupt budget after the bundle.
import { prewarm, setInterruptBudget } from '../dist/cli/prewarm.js';

const { budget } = prewarm(process.argv.slice(2));
const { main } = await import('../dist/cli/cli.bundle.js');
setInterruptBudget(budget);
main({ commandName: 'kubectl audit-scan' });
