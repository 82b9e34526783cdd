// audit-scan's line engine, in AssemblyScript (compiled to dist/decode/engine/*.wasm by `npm run build`).
//
// It reads newline-terminated lines from the input region and, for each audit Event line on its fast path,
// writes a record of the fields the scan counts: strings interned to ids (new ones listed for the host to
// decode once), one-off strings (auditID, object name, requestURI, resourceVersion) unescaped into a scratch
// arena, times in epoch ms, the list query already parsed, and from a responseObject its item counts (the
// bodies are skipped otherwise: see "bodies"). It decides nothing about what a line means: any line it is not
// sure of (other kinds, wrappers, bodies with a token's or a lease's fields, odd JSON, escapes it does not take,
// invalid UTF-8) is declined and the host reads it with the JavaScript path. It never counts: the host does, once.
//
// Memory is laid out by the host through init(); everything is raw loads and stores (runtime stub, no GC).

//
// The module's exports, by the stage that holds them (each file's first line says its job):

export { dedupOpen, dedupClose, dedupAdmit, dedupForget, dedupTail, dedupTailPtr, dedupKey, dedupLive } from './dedup';
export { SLOT_BYTES, slotsReset, slotsPtr, slotsLen, clientsPtr, clientsLen, pairsPtr, samplesPtr, pairsCompact, countRecords, slotsFingerprint, fpHash, fpHash1, fpHash2 } from './slots';
export { REC_BYTES, init, slotsSetup, outPtr, scratchPtr, newsPtr, newsLen, internedCount } from './setup';
export { setKlogClock } from './httplog';
export { lineCount, scan } from './lines';
export { classifyAt, fastOpensPtr, fastOpensLen, fastVerdictOf, fastDupsOf, admitFast, memHash, memEqual } from './admit';
