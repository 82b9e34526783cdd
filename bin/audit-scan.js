#!/usr/bin/env node
// The workers a scan of argv will need start first (src/cli/prewarm.ts): the scan pool's first worker for a big
// plain file, the inflate thread for a gzip file. They boot on the other core while this thread loads the CLI's
// bundle; V8's interrupt budget for a scan in lanes is set after that load (setInterruptBudget says why).
import { prewarm, setInterruptBudget } from '../dist/cli/prewarm.js';

const { budget } = prewarm(process.argv.slice(2));
const { main } = await import('../dist/cli/cli.bundle.js');
setInterruptBudget(budget);
main();
