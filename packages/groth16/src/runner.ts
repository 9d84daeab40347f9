/**
 * Who runs a proof's tasks: the coordinating thread itself (`LocalRunner`: tests, a browser without
 * shared memory) or worker threads over the same memory (node-runner.ts). Each thread has a heap of
 * its own in the shared memory for its tasks' buckets; a task that needs more gets a larger one.
 */
import type { EngineInstance, SharedHeap } from './engine/instance.ts';
import { taskHeapBytes } from './msm.ts';
import { runTask, type Task } from './tasks.ts';

export interface RunResult {
  /** False if the flag at the run's `cancelFlag` was set before the tasks were done. */
  readonly finished: boolean;
  /** Thread time spent on the tasks of each label, ms. */
  readonly busyMs: Readonly<Record<string, number>>;
}

/**
 * Called on the coordinating thread as each task ends; the tasks it returns (those the ended ones
 * made possible) go to the front of the queue.
 */
export type OnTaskDone = (task: Task) => readonly Task[] | undefined;

export interface TaskRunner {
  readonly threads: number;
  /**
   * Runs the tasks, each once, taken in order as threads get free (as many at a time as there are
   * threads), with those `onDone` adds; stops early if the flag at `cancelFlag` (an i32 of the
   * shared memory) is set.
   */
  run(tasks: readonly Task[], cancelFlag: number, onDone?: OnTaskDone): Promise<RunResult>;
  close(): Promise<void>;
}

/** Adds a task's time to its label's. */
export function addBusy(busy: Record<string, number>, label: string, ms: number): void {
  busy[label] = (busy[label] ?? 0) + ms;
}

/** The heap bytes a task needs. */
export function heapBytesOf(t: Task): number {
  return t.kind === 'msm' ? taskHeapBytes(t.input.curve, t.input.c, t.w0, t.w1, t.input.shifted === true) : 0;
}

/** A thread's heap: grown (a new region) when a task needs more than it has. */
export class ThreadHeap {
  address = 0;
  size = 0;
  constructor(private readonly heap: SharedHeap) {}
  fit(bytes: number): number {
    if (bytes > this.size) {
      this.size = Math.max(bytes, this.size * 2, 1 << 20);
      this.address = this.heap.alloc(this.size);
    }
    return this.address;
  }
}

export class LocalRunner implements TaskRunner {
  readonly threads = 1;
  private readonly own: ThreadHeap;

  constructor(
    heap: SharedHeap,
    private readonly e: EngineInstance,
  ) {
    this.own = new ThreadHeap(heap);
  }

  async run(tasks: readonly Task[], cancelFlag: number, onDone?: OnTaskDone): Promise<RunResult> {
    const cancelled = () => Atomics.load(this.e.i32, cancelFlag >>> 2) !== 0;
    const busyMs: Record<string, number> = {};
    const queue = [...tasks];
    for (let t = queue.shift(); t !== undefined; t = queue.shift()) {
      if (cancelled()) return { finished: false, busyMs };
      const heap = this.own.fit(heapBytesOf(t));
      const t0 = performance.now();
      const done = runTask(this.e, t, heap, cancelled);
      addBusy(busyMs, t.label, performance.now() - t0);
      if (!done) return { finished: false, busyMs };
      const more = onDone?.(t);
      if (more) queue.unshift(...more);
      // Lets an abort reach the flag between tasks.
      await new Promise((r) => setTimeout(r, 0));
    }
    return { finished: !cancelled(), busyMs };
  }

  async close(): Promise<void> {}
}
