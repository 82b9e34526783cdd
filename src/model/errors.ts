/*! Typed errors. Library code throws these; only cli/main.ts maps them to exit codes. */

/** A bad flag or argument: exit 2, reported before any input is read. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A file that cannot be read (missing, permissions, corrupt gzip): reported, scan continues, exit 1. */
export class InputError extends Error {
  override name = 'InputError';
}

/** A broken invariant inside audit-scan: a bug. Exit 2 with a stack trace. */
export class InternalError extends Error {
  override name = 'InternalError';
}

/** The user pressed Ctrl-C: exit 130 with the message. */
export class InterruptedError extends Error {
  override name = 'InterruptedError';
}
