/*! One job: a count by name in a Map (bump), the one helper every layer's tallies share (skip reasons, verbs,
 * versions, user agents). */

/** Adds `n` to a count in a map of counts by name. */
export const bump = (m: Map<string, number>, k: string, n = 1): void => {
  m.set(k, (m.get(k) ?? 0) + n);
};
