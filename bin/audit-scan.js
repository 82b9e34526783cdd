#!/usr/bin/env node
// The scan worker starts first, when argv names a big plain file (src/cli/prewarm.ts): it boots on the other core
// while this thread loads the CLI's bundle.
import { prewarm } from '../dist/cli/prewarm.js';

prewarm(process.argv.slice(2));
const { main } = await import('../dist/cli/cli.bundle.js');
main();
