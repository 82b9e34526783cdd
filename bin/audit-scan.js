#!/usr/bin/env node
// The workers a scan of argv will need start first (src/cli/prewarm.ts): the scan pool's first worker for a big
// plain file, the inflate thread for a gzip file. They boot on the other core while this thread loads the CLI's
// bundle.
import { prewarm } from '../dist/cli/prewarm.js';

prewarm(process.argv.slice(2));
const { main } = await import('../dist/cli/cli.bundle.js');
main();
