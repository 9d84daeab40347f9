// A PoW ticket-search worker thread (see miner.ts). It holds one task at a time (a block's sponge prefix
// and reward target, with the task's generation), works on it in chunks of a few milliseconds
// (util/chunked-worker.ts, the loop the Blend puzzle worker uses too) and posts each chunk's attempt
// count and winners. It lowers its own scheduling priority first (on Linux the nice value belongs to the
// thread), so block validation and the API on the main thread go first.
// Started by miner.ts through `startWorker` (shared/runtime.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { permute } from '../crypto/poseidon2/index.ts';
import { lowerPriority, serveChunkedTasks } from '../util/chunked-worker.ts';
import { SecretKeySource, searchTickets, ticketPrefix } from './ticket-search.ts';

const port = parentPort!;

const priority = lowerPriority(workerData?.nice ?? 19);

const keys = new SecretKeySource();
const CHUNK_MS = workerData?.chunkMs ?? 4;

serveChunkedTasks({
  start: (msg) => ({ gen: msg.gen, prefix: ticketPrefix(msg.epochNonce, msg.blockHash), target: msg.target }),
  chunk(t) {
    const { attempts, winners } = searchTickets(t.prefix, t.target, keys, Number.MAX_SAFE_INTEGER, CHUNK_MS);
    port.postMessage({ type: 'chunk', gen: t.gen, attempts, winners });
    return true;
  },
  other(msg) {
    if (msg.type !== 'permute-rate') return;
    // The bench's limit: permutations per second of this thread, measured for `ms` milliseconds.
    let s: [bigint, bigint, bigint] = [1n, 2n, 3n];
    let n = 0;
    const end = performance.now() + msg.ms;
    while (performance.now() < end) {
      for (let i = 0; i < 16; i++) s = permute(s);
      n += 16;
    }
    port.postMessage({ type: 'permute-rate', permutations: n, ms: msg.ms });
  },
});

port.postMessage({ type: 'ready', priority });
