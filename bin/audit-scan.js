#!/usr/bin/env node
import { main } from '../dist/cli/cli.bundle.js';
main();
