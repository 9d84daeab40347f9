/**
 * A pool of prover processes (src/zk/prover-process.ts), each with its backend (this project's prover
 * on `threads` worker threads, or snarkjs). Requests queue and go to the next free prover, urgent ones
 * first and background ones last; a request aborted while it waits leaves the queue, and one aborted
 * while it is proved is stopped (this project's prover stops within a task; snarkjs runs to its end,
 * its result dropped). A prover that dies fails its request and is replaced by the next request.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LogosError } from '@logos-ts/shared/errors';
import { childExecArgv, siblingModule } from '@logos-ts/shared/runtime';
import type { SnarkjsProof } from 'snarkjs';
import type { ProveOptions } from '../ledger/proof-system.ts';
import type { ProverBackendName } from './prover-backend.ts';

export class ProverError extends LogosError {
  constructor(message: string) {
    super('PROVER_ERROR', message);
  }
}

export interface ProveRequest {
  readonly id: number;
  readonly wasmPath: string;
  readonly zkeyPath: string;
  readonly input: Record<string, string | string[]>;
  /** Only load the circuit's files and build the curve. */
  readonly warm?: true;
}

type ProveResponse =
  | { readonly id: number; readonly ok: true; readonly proof: SnarkjsProof; readonly publicSignals: string[] }
  | { readonly id: number; readonly ok: false; readonly error: string };

interface Job {
  readonly req: ProveRequest;
  resolve(v: { proof: SnarkjsProof; publicSignals: string[] }): void;
  reject(e: Error): void;
  /** Waits behind every request that is not. */
  readonly background?: boolean;
}

const PROVER = fileURLToPath(siblingModule(import.meta.url, 'prover-process'));

export class ProverPool {
  private readonly idle: ChildProcess[] = [];
  private readonly busy = new Map<ChildProcess, Job>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly size = 1,
    private readonly backend: ProverBackendName = 'wasm',
    /** Worker threads of each prover process (this project's prover). */
    private readonly threads = 1,
  ) {}

  prove(
    wasmPath: string,
    zkeyPath: string,
    input: ProveRequest['input'],
    opts: ProveOptions = {},
  ): Promise<{ proof: SnarkjsProof; publicSignals: string[] }> {
    if (this.closed) return Promise.reject(new ProverError('the prover is closed'));
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(new ProverError('the proof was no longer needed'));
    return new Promise((resolve, reject) => {
      const job: Job = {
        req: { id: this.nextId++, wasmPath, zkeyPath, input },
        resolve,
        reject,
        background: opts.background === true,
      };
      if (opts.urgent) this.queue.unshift(job);
      else if (opts.background) this.queue.push(job);
      else {
        // Before the background requests, after the others.
        const i = this.queue.findIndex((j) => j.background);
        if (i < 0) this.queue.push(job);
        else this.queue.splice(i, 0, job);
      }
      signal?.addEventListener(
        'abort',
        () => {
          const i = this.queue.indexOf(job);
          if (i >= 0) {
            this.queue.splice(i, 1);
            reject(new ProverError('the proof was no longer needed'));
            return;
          }
          // Under way: the prover is asked to stop; its answer settles the request.
          for (const [p, j] of this.busy) if (j === job && p.connected) p.send({ cancel: job.req.id });
        },
        { once: true },
      );
      this.pump();
    });
  }

  /**
   * Has a prover load a circuit's files and build its curve now, so that the first proof is not slowed
   * by it (a request like the others: it waits its turn).
   */
  async warm(wasmPath: string, zkeyPath: string): Promise<void> {
    if (this.closed) return;
    await new Promise<void>((resolve, reject) => {
      this.queue.push({
        req: { id: this.nextId++, wasmPath, zkeyPath, input: {}, warm: true },
        resolve: () => resolve(),
        reject,
      });
      this.pump();
    });
  }

  /** Requests waiting for a free prover. */
  get waiting(): number {
    return this.queue.length;
  }

  private spawn(): ChildProcess {
    const p = fork(PROVER, [this.backend, String(this.threads)], {
      execArgv: childExecArgv(),
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    p.on('message', (res: ProveResponse) => {
      const job = this.busy.get(p);
      if (!job || job.req.id !== res.id) return;
      this.busy.delete(p);
      this.idle.push(p);
      if (res.ok) job.resolve({ proof: res.proof, publicSignals: res.publicSignals });
      else job.reject(new ProverError(`proving failed: ${res.error}`));
      this.pump();
    });
    p.on('exit', (code, signal) => {
      const job = this.busy.get(p);
      this.busy.delete(p);
      const i = this.idle.indexOf(p);
      if (i >= 0) this.idle.splice(i, 1);
      job?.reject(new ProverError(`the prover process exited (${signal ?? code})`));
      if (!this.closed) this.pump();
    });
    return p;
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let p = this.idle.pop();
      if (!p) {
        if (this.busy.size >= this.size) return;
        p = this.spawn();
      }
      const job = this.queue.shift()!;
      this.busy.set(p, job);
      p.send(job.req);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new ProverError('the prover is closed'));
    const procs = [...this.idle, ...this.busy.keys()];
    await Promise.all(
      procs.map(
        (p) =>
          new Promise<void>((resolve) => {
            if (p.exitCode !== null || p.signalCode !== null) return resolve();
            p.once('exit', () => resolve());
            p.send({ close: true });
            setTimeout(() => p.kill('SIGKILL'), 3000).unref();
          }),
      ),
    );
  }
}
