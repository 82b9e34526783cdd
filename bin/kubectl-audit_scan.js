#!/usr/bin/env node
// The kubectl plugin: kubectl runs an executable named kubectl-audit_scan found on PATH as `kubectl audit-scan`.
// It starts as bin/audit-scan.js does, which it is: main() names the command from argv[1] (commandNameOf).
import './audit-scan.js';
