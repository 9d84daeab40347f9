/**
 * A worker thread of the prover: instantiates the engine over the shared memory it is given and runs
 * the tasks the coordinating thread sends (node-runner.ts), answering each with whether it finished.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { EngineInstance } from '../engine/instance.ts';
import { runTask, type Task } from '../tasks.ts';

interface Init {
  readonly memory: WebAssembly.Memory;
  readonly module: WebAssembly.Module;
  readonly scratch: number;
}

export interface TaskMessage {
  readonly id: number;
  readonly task: Task;
  readonly heap: number;
  readonly cancelFlag: number;
}

export type TaskReply =
  | { readonly id: number; readonly ok: true; readonly finished: boolean; readonly ms: number }
  | { readonly id: number; readonly ok: false; readonly error: string };

const init = workerData as Init;
const e = new EngineInstance(init.memory, init.module, init.scratch);
const port = parentPort!;
port.on('message', (m: TaskMessage) => {
  try {
    const cancelled = () => Atomics.load(e.i32, m.cancelFlag >>> 2) !== 0;
    const t0 = performance.now();
    const finished = runTask(e, m.task, m.heap, cancelled);
    port.postMessage({ id: m.id, ok: true, finished, ms: performance.now() - t0 } satisfies TaskReply);
  } catch (err) {
    port.postMessage({ id: m.id, ok: false, error: (err as Error).message } satisfies TaskReply);
  }
});
