// node:worker_threads for the single-file binary's bundle (scripts/build-binary.mjs resolves src/parallel/prewarm's
// import to this file): a worker cannot be started from a file that is not there, so inside the binary it runs
// the bundled worker, an asset of the binary, as code. Outside the binary it is the real module.
const threads = require('node:worker_threads');
const sea = require('node:sea');

class Worker extends threads.Worker {
  constructor(url, options) {
    if (sea.isSea()) super(sea.getAsset('worker.cjs', 'utf8'), { ...options, eval: true });
    else super(url, options);
  }
}

module.exports = { ...threads, Worker };
