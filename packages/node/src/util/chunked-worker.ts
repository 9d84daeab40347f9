// The loop of a search worker thread (the PoW ticket search, pow/ticket-worker.ts; the Blend puzzle,
// blend/puzzle-worker.ts): it holds one task at a time and works on it in chunks of a few
// milliseconds; between chunks it yields, so a new task or `idle` takes effect within one chunk.
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';

/**
 * Lowers the calling thread's scheduling priority, so block validation and the API on the main thread
 * go first (pid 0: on Linux setpriority(PRIO_PROCESS, 0) acts on the calling thread, whose nice value
 * is its own). Returns whether it could.
 */
export function lowerPriority(nice = 19): { ok: boolean; error?: string } {
  try {
    setPriority(0, nice);
    return { ok: true };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * Serves the parent's messages: `{type: 'task', …}` replaces the task with `start(msg)`, `{type: 'idle'}`
 * drops it, any other goes to `other`. `chunk(task)` works on the task for one chunk and returns false
 * when the task is done (it is dropped then).
 */
// biome-ignore lint/suspicious/noExplicitAny: messages are whatever the worker's parent posts
type Message = any;

export interface ChunkedTasks<T> {
  readonly start: (msg: Message) => T;
  readonly chunk: (task: T) => boolean;
  readonly other?: (msg: Message) => void;
}

export function serveChunkedTasks<T>({ start, chunk, other = () => {} }: ChunkedTasks<T>): void {
  const port = parentPort!;
  let task: T | null = null;
  let scheduled = false;

  function loop(): void {
    scheduled = false;
    if (task === null) return;
    const t = task;
    if (chunk(t) === false && task === t) task = null;
    schedule();
  }

  function schedule(): void {
    if (!scheduled && task !== null) {
      scheduled = true;
      setImmediate(loop);
    }
  }

  port.on('message', (msg: Message) => {
    if (msg.type === 'task') {
      task = start(msg);
      schedule();
    } else if (msg.type === 'idle') {
      task = null;
    } else {
      other(msg);
    }
  });
}
