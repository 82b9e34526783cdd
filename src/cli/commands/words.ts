/*! The command words run() dispatches on, apart from the commands they name: main.ts loads a command's module
 * (and what only it needs: DuckDB's store, the shards' codec, --follow's reader, the shells' completion) when argv
 * names it, not on every start. */

/** The store's commands (store.ts). */
export const STORE_COMMANDS: ReadonlySet<string> = new Set(['load', 'sql', 'export', 'scan']);

/** The shards' commands (partial.ts). */
export const SHARD_COMMANDS: ReadonlySet<string> = new Set(['partial', 'merge']);

/** The shells `audit-scan completion` writes a script for (completion.ts). */
export const COMPLETION_SHELLS: readonly string[] = ['bash', 'zsh', 'fish'];
