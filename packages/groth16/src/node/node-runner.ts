/**
 * Worker threads over the engine's shared memory (Node's `worker_threads`): the tasks of a proof go
 * to whichever thread is free, the largest first as the prover lists them. A task that fails fails
 * the run; a thread that dies is replaced before the next run.
 */
import type { Worker } from 'node:worker_threads';
import { startWorker } from '@logos-ts/shared/runtime';
import type { SharedHeap } from '../engine/instance.ts';
import {
  addBusy,
  heapBytesOf,
  type OnTaskDone,
  type RunResult,
  type TaskRunner,
  ThreadHeap,
} from '../runner.ts';
import type { Task } from '../tasks.ts';
import type { TaskMessage, TaskReply } from './worker.ts';

/** A promise and its resolver. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

interface Thread {
  worker: Worker;
  readonly heap: ThreadHeap;
  readonly scratch: number;
  alive: boolean;
}

export class NodeRunner implements TaskRunner {
  private readonly pool: Thread[] = [];
  private nextId = 1;
  private closed = false;

  private constructor(
    private readonly heap: SharedHeap,
    private readonly module: WebAssembly.Module,
    readonly threads: number,
  ) {}

  /** `threads` workers; thread k uses the heap's scratch region k + 1 (0 is the coordinator's). */
  static async start(heap: SharedHeap, module: WebAssembly.Module, threads: number): Promise<NodeRunner> {
    const r = new NodeRunner(heap, module, threads);
    for (let k = 0; k < threads; k++) r.pool.push(await r.spawn(heap.scratchOf(k + 1), new ThreadHeap(heap)));
    return r;
  }

  private spawn(scratch: number, heap: ThreadHeap): Promise<Thread> {
    const worker = startWorker(import.meta.url, 'worker', {
      workerData: { memory: this.heap.memory, module: this.module, scratch },
    });
    const t: Thread = { worker, heap, scratch, alive: true };
    worker.on('exit', () => {
      t.alive = false;
    });
    worker.on('error', () => {
      t.alive = false;
    });
    worker.unref();
    return Promise.resolve(t);
  }

  async run(tasks: readonly Task[], cancelFlag: number, onDone?: OnTaskDone): Promise<RunResult> {
    if (this.closed) throw new Error('the prover threads are closed');
    for (let k = 0; k < this.pool.length; k++) {
      const t = this.pool[k]!;
      if (!t.alive) this.pool[k] = await this.spawn(t.scratch, t.heap);
    }
    const queue = [...tasks];
    let finished = true;
    let inFlight = 0;
    // A thread that finds the queue empty while others run waits: an ending task may add more.
    let changed = signal();
    const busyMs: Record<string, number> = {};
    const work = async (t: Thread): Promise<void> => {
      for (;;) {
        const task = queue.shift();
        if (task === undefined) {
          if (inFlight === 0) return;
          await changed.promise;
          continue;
        }
        inFlight++;
        try {
          const reply = await this.send(t, task, cancelFlag);
          addBusy(busyMs, task.label, reply.ms);
          if (!reply.finished) finished = false;
          else {
            const more = onDone?.(task);
            if (more) queue.unshift(...more);
          }
        } finally {
          inFlight--;
          const c = changed;
          changed = signal();
          c.resolve();
        }
      }
    };
    await Promise.all(this.pool.map((t) => work(t)));
    return { finished, busyMs };
  }

  private send(t: Thread, task: Task, cancelFlag: number): Promise<{ finished: boolean; ms: number }> {
    const id = this.nextId++;
    const msg: TaskMessage = { id, task, heap: t.heap.fit(heapBytesOf(task)), cancelFlag };
    return new Promise((resolve, reject) => {
      const onMessage = (r: TaskReply) => {
        if (r.id !== id) return;
        done();
        if (r.ok) resolve({ finished: r.finished, ms: r.ms });
        else reject(new Error(`a prover thread failed: ${r.error}`));
      };
      const onExit = (code: number) => {
        done();
        reject(new Error(`a prover thread exited (${code})`));
      };
      const done = () => {
        t.worker.off('message', onMessage);
        t.worker.off('exit', onExit);
      };
      t.worker.on('message', onMessage);
      t.worker.on('exit', onExit);
      t.worker.postMessage(msg);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.pool.map((t) => t.worker.terminate()));
  }
}
