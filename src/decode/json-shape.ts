/*! What the decoder says of lines that are not events: a JSON value's shape, and the kind name of a must-gather's
 * own metadata files (analyze/input-kind.ts words both when an input yields nothing). */

/** The otherKinds name of a must-gather file that describes the gather (its timestamp, its listings). */
export const MUST_GATHER_METADATA = 'must-gather metadata';

/** "keys: a, b, c; kind: Pod; msg: started" for the first JSON value that was not an event. */
export function describeJsonShape(o: Record<string, unknown>): string {
  const keys = Object.keys(o);
  const parts = [`keys: ${keys.slice(0, 8).join(', ')}${keys.length > 8 ? ', …' : ''}`];
  if (typeof o.kind === 'string') parts.push(`kind: ${o.kind.slice(0, 40)}`);
  const msg = o.msg ?? o.message;
  if (typeof msg === 'string') parts.push(`msg: ${msg.slice(0, 60)}`);
  return 'json ' + parts.join('; ');
}
