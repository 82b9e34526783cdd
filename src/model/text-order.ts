/*! The one text order for ties in the report: by UTF-16 code unit, the same in every locale (not localeCompare). */
export const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
