/*! Whole JSON documents that are not one-per-line: pretty-printed events, concatenated documents, top-level
 * arrays, and big batches ({"kind":"EventList","items":[…]}, AKS {"records":[…]}, CloudWatch {"logEvents":[…]},
 * the AWS CLI's {"events":[…]}, Datadog's {"data":[…]}).
 * The sole stream-json import. Batch items are assembled one at a time, so a 100k-item EventList never
 * exists whole in memory. */

import { parser } from 'stream-json';
import Assembler from 'stream-json/assembler.js';

/** Keys whose array elements are emitted one by one: EventList items, AKS records, CloudWatch subscription
 * logEvents, the AWS CLI's events, and Datadog's logs API data. */
const BATCH_KEYS = new Set(['items', 'records', 'logEvents', 'events', 'data']);

type Token = { name: string; value?: unknown };

/** Receives each value: `where` names it ("document 2", "document 1 items[17]"), `batchKey` the array it came from. */
export type DocumentSink = (where: string, value: unknown, batchKey: string | null) => void;

/**
 * Streams JSON documents from byte chunks. Returns a writer: call write(chunk) for each chunk, then end().
 * end() resolves with an error message when the input stopped inside a document (truncated), else null.
 */
export function createDocumentReader(sink: DocumentSink): { write(chunk: Buffer): Promise<void>; end(): Promise<string | null> } {
  const p = parser.asStream({ jsonStreaming: true, streamValues: false });
  let docNo = 0;
  let depth = 0;
  let top: InstanceType<typeof Assembler> | null = null; // the top-level value (minus batch arrays)
  let topIsArray = false;
  let item: InstanceType<typeof Assembler> | null = null; // the element being assembled
  let itemDepth = 0; // depth at which the current element started
  let key: string | null = null;
  let batchKey: string | null = null;
  let batchIndex = 0;
  let error: string | null = null;
  let inside = false;

  const onToken = (t: Token): void => {
    const n = t.name;
    if (n === 'startKey' || n === 'endKey' || n === 'startString' || n === 'endString' || n === 'stringChunk' || n === 'startNumber' || n === 'endNumber' || n === 'numberChunk' || n === 'whitespace') return;
    const opens = n === 'startObject' || n === 'startArray';
    const closes = n === 'endObject' || n === 'endArray';
    if (depth === 0) {
      docNo++;
      inside = opens;
      if (!opens) {
        sink(`document ${docNo}`, t.value, null);
        return;
      }
      depth = 1;
      topIsArray = n === 'startArray';
      batchIndex = 0;
      top = topIsArray ? null : new Assembler();
      top?.consume(t as never);
      return;
    }
    // Elements of a batch (depth 2 inside the top object) or of a top-level array (depth 1).
    const elementDepth = topIsArray ? 1 : 2;
    if (item !== null) {
      item.consume(t as never);
      if (opens) depth++;
      if (closes) depth--;
      if (depth === itemDepth) {
        sink(`document ${docNo} ${topIsArray ? '' : batchKey}[${batchIndex++}]`, item.current, topIsArray ? null : batchKey);
        item = null;
      }
      return;
    }
    if (depth === elementDepth && (topIsArray || batchKey !== null) && !closes) {
      if (opens) {
        item = new Assembler();
        item.consume(t as never);
        itemDepth = depth;
        depth++;
      } else {
        sink(`document ${docNo} ${topIsArray ? '' : batchKey}[${batchIndex++}]`, t.value, topIsArray ? null : batchKey);
      }
      return;
    }
    if (n === 'keyValue' && depth === 1) key = t.value as string;
    if (n === 'startArray' && depth === 1 && key !== null && BATCH_KEYS.has(key)) {
      batchKey = key;
      batchIndex = 0;
      top?.consume(t as never);
      depth++;
      return;
    }
    top?.consume(t as never);
    if (opens) depth++;
    if (closes) {
      depth--;
      if (depth === 1 && batchKey !== null && n === 'endArray') batchKey = null;
      if (depth === 0) {
        inside = false;
        if (!topIsArray && top !== null) {
          const v = top.current as Record<string, unknown>;
          // A wrapper whose batch was streamed is done; anything else is a value of its own.
          const wasBatch = Object.keys(v).some((k) => BATCH_KEYS.has(k) && Array.isArray(v[k]));
          if (!wasBatch) sink(`document ${docNo}`, v, null);
        }
        top = null;
      }
    }
  };
  p.on('data', onToken);
  const done = new Promise<void>((resolve) => {
    p.on('error', (err: Error) => {
      error = err.message;
      resolve();
    });
    p.on('end', () => resolve());
  });
  return {
    async write(chunk: Buffer): Promise<void> {
      if (error !== null) return;
      // (an error while the parser's buffer is full ends the wait too: no 'drain' follows an error)
      if (!p.write(chunk) && error === null) await Promise.race([new Promise<void>((r) => p.once('drain', () => r())), done]);
    },
    async end(): Promise<string | null> {
      if (error === null) p.end();
      await done;
      if (error !== null) return `invalid JSON in document ${docNo}: ${error}`;
      if (inside || depth > 0) return `truncated document ${docNo}`;
      return null;
    },
  };
}
