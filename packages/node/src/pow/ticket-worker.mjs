// A PoW ticket-search worker thread (see miner.ts). It holds one task at a time (a block's sponge prefix
// and reward target, with the task's generation), works on it in chunks of a few milliseconds
// (util/chunked-worker.mjs, the loop the Blend puzzle worker uses too) and posts each chunk's attempt
// count and winners. It lowers its own scheduling priority first (on Linux the nice value belongs to the
// thread), so block validation and the API on the main thread go first.
// Plain JavaScript that registers the TypeScript loader itself: worker threads do not inherit the
// node's `--import tsx`.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';
import { lowerPriority, serveChunkedTasks } from '../util/chunked-worker.mjs';

register();
const { SecretKeySource, searchTickets, ticketPrefix } = await import('./ticket-search.ts');
const { permute } = await import('../crypto/poseidon2/index.ts');

const priority = lowerPriority(workerData?.nice ?? 19);

const keys = new SecretKeySource();
const CHUNK_MS = workerData?.chunkMs ?? 4;

serveChunkedTasks({
  start: (msg) => ({ gen: msg.gen, prefix: ticketPrefix(msg.epochNonce, msg.blockHash), target: msg.target }),
  chunk(t) {
    const { attempts, winners } = searchTickets(t.prefix, t.target, keys, Number.MAX_SAFE_INTEGER, CHUNK_MS);
    parentPort.postMessage({ type: 'chunk', gen: t.gen, attempts, winners });
    return true;
  },
  other(msg) {
    if (msg.type !== 'permute-rate') return;
    // The bench's limit: permutations per second of this thread, measured for `ms` milliseconds.
    let s = [1n, 2n, 3n];
    let n = 0;
    const end = performance.now() + msg.ms;
    while (performance.now() < end) {
      for (let i = 0; i < 16; i++) s = permute(s);
      n += 16;
    }
    parentPort.postMessage({ type: 'permute-rate', permutations: n, ms: msg.ms });
  },
});

parentPort.postMessage({ type: 'ready', priority });
