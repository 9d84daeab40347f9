// A PoW ticket-search worker thread (see miner.ts). It holds one task at a time (a block's sponge prefix
// and reward target, with the task's generation), works on it in chunks of a few milliseconds and posts
// each chunk's attempt count and winners; between chunks it yields, so a new task or `idle` takes effect
// within one chunk. It lowers its own scheduling priority first (on Linux the nice value belongs to the
// thread), so block validation and the API on the main thread go first.
// Plain JavaScript that registers the TypeScript loader itself: worker threads do not inherit the
// node's `--import tsx`.
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { SecretKeySource, searchTickets, ticketPrefix } = await import('./ticket-search.ts');
const { permute } = await import('../crypto/poseidon2/index.ts');

let priority = { ok: true };
try {
  // pid 0: the calling thread on Linux (setpriority(PRIO_PROCESS, 0) acts on the calling task).
  setPriority(0, workerData?.nice ?? 19);
} catch (e) {
  priority = { ok: false, error: e instanceof Error ? e.message : String(e) };
}

const keys = new SecretKeySource();
const CHUNK_MS = workerData?.chunkMs ?? 4;
let task = null;
let scheduled = false;

function loop() {
  scheduled = false;
  if (task === null) return;
  const t = task;
  const { attempts, winners } = searchTickets(t.prefix, t.target, keys, Number.MAX_SAFE_INTEGER, CHUNK_MS);
  parentPort.postMessage({ type: 'chunk', gen: t.gen, attempts, winners });
  schedule();
}

function schedule() {
  if (!scheduled && task !== null) {
    scheduled = true;
    setImmediate(loop);
  }
}

parentPort.on('message', (msg) => {
  if (msg.type === 'task') {
    task = { gen: msg.gen, prefix: ticketPrefix(msg.epochNonce, msg.blockHash), target: msg.target };
    schedule();
  } else if (msg.type === 'idle') {
    task = null;
  } else if (msg.type === 'permute-rate') {
    // The bench's limit: permutations per second of this thread, measured for `ms` milliseconds.
    let s = [1n, 2n, 3n];
    let n = 0;
    const end = performance.now() + msg.ms;
    while (performance.now() < end) {
      for (let i = 0; i < 16; i++) s = permute(s);
      n += 16;
    }
    parentPort.postMessage({ type: 'permute-rate', permutations: n, ms: msg.ms });
  }
});

parentPort.postMessage({ type: 'ready', priority });
