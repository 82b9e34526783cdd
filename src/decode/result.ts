/*! ParseResult: parsers return reasons instead of throwing on bad data. */

/** Either a value or the reason the input was not one. */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; reason: string };

export const ok = <T>(value: T): ParseResult<T> => ({ ok: true, value });
export const fail = <T = never>(reason: string): ParseResult<T> => ({ ok: false, reason });
