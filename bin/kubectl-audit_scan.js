#!/usr/bin/env node
// The kubectl plugin: kubectl runs an executable named kubectl-audit_scan found on PATH as `kubectl audit-scan`.
import { main } from '../dist/cli/cli.bundle.js';
main({ commandName: 'kubectl audit-scan' });
