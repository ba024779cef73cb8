// Bench-only preload (node --require): lowers every worker thread (bcrypt, metadata) to nice 19 so the
// event loop wins the CPU. On Linux setpriority(0) applies to the calling thread only.
const { isMainThread } = require('node:worker_threads');
if (!isMainThread) require('node:os').setPriority(19);
