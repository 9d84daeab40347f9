/**
 * A pool of prover processes (src/zk/prover-process.mjs). Requests queue and go to the next free
 * prover; a prover that dies fails its request and is replaced by the next request.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SnarkjsProof } from 'snarkjs';
import { LogosError } from '../errors/base.ts';

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
}

type ProveResponse =
  | { readonly id: number; readonly ok: true; readonly proof: SnarkjsProof; readonly publicSignals: string[] }
  | { readonly id: number; readonly ok: false; readonly error: string };

interface Job {
  readonly req: ProveRequest;
  resolve(v: { proof: SnarkjsProof; publicSignals: string[] }): void;
  reject(e: Error): void;
}

const PROVER = fileURLToPath(new URL('./prover-process.mjs', import.meta.url));

export class ProverPool {
  private readonly idle: ChildProcess[] = [];
  private readonly busy = new Map<ChildProcess, Job>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly size = 1) {}

  prove(
    wasmPath: string,
    zkeyPath: string,
    input: ProveRequest['input'],
  ): Promise<{ proof: SnarkjsProof; publicSignals: string[] }> {
    if (this.closed) return Promise.reject(new ProverError('the prover is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ req: { id: this.nextId++, wasmPath, zkeyPath, input }, resolve, reject });
      this.pump();
    });
  }

  private spawn(): ChildProcess {
    const p = fork(PROVER, [], { execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
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
