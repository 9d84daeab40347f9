/**
 * A pool of prover processes (src/zk/prover-process.ts), each with its backend (this project's prover
 * on `threads` worker threads, or snarkjs). Requests queue and go to the next free prover, urgent ones
 * first and background ones last.
 *
 * A request says until when it is useful with its `AbortSignal`: aborted while it waits, it leaves
 * the queue; aborted while it is proved, the prover is told to stop (this project's prover stops
 * within a task; snarkjs runs to its end and the result is dropped); aborted after its proof was
 * made, that proof was made for nothing. Each drop is logged at debug with what the proof was for and
 * why it was dropped, and the proving time spent on dropped or unused proofs is counted (`stats`).
 * A prover that dies fails its request and is replaced by the next request.
 */

import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LogosError } from '@logos-ts/shared/errors';
import { childExecArgv, siblingModule } from '@logos-ts/shared/runtime';
import type { Logger } from 'pino';
import type { SnarkjsProof } from 'snarkjs';
import type { ProveOptions } from '../ledger/proof-system.ts';
import type { Meter } from '../util/meter.ts';
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
  /** The circuit and what the proof is for, for the log. */
  readonly circuit: string;
  readonly what?: string | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly onStart?: (() => void) | undefined;
  readonly queuedAt: number;
  startedAt?: number;
  /** Proving time once the answer came. */
  provedMs?: number;
}

/** Proving time spent, by what became of the proofs (seconds since the pool started). */
export interface ProverStats {
  /** Proofs made and still wanted when they were done (what their requester does with them is its own). */
  readonly usedS: number;
  /** Proofs stopped under way, made after their requester gave them up, or given up once made. */
  readonly wastedS: number;
  /** Requests dropped (from the queue, under way or once made). */
  readonly dropped: number;
}

const PROVER = fileURLToPath(siblingModule(import.meta.url, 'prover-process'));

/** Why a signal was aborted, as a log line says it. */
function reasonOf(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  if (typeof r === 'string') return r;
  if (r instanceof Error && r.name !== 'AbortError') return r.message;
  return 'no longer needed';
}

export class ProverPool {
  private readonly idle: ChildProcess[] = [];
  private readonly busy = new Map<ChildProcess, Job>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private usedMs = 0;
  private wastedMs = 0;
  private droppedCount = 0;

  constructor(
    private readonly size = 1,
    private readonly backend: ProverBackendName = 'wasm',
    /** Worker threads of each prover process (this project's prover). */
    private readonly threads = 1,
    private readonly logger?: Logger,
    /** Times each proof used, by circuit. */
    private readonly meter?: Meter,
  ) {}

  get stats(): ProverStats {
    return { usedS: this.usedMs / 1000, wastedS: this.wastedMs / 1000, dropped: this.droppedCount };
  }

  prove(
    circuit: string,
    wasmPath: string,
    zkeyPath: string,
    input: ProveRequest['input'],
    opts: ProveOptions = {},
  ): Promise<{ proof: SnarkjsProof; publicSignals: string[] }> {
    if (this.closed) return Promise.reject(new ProverError('the prover is closed'));
    const { signal } = opts;
    if (signal?.aborted) {
      this.drop(circuit, opts.what, 'before it was queued', reasonOf(signal), 0);
      return Promise.reject(new ProverError('the proof was no longer needed'));
    }
    return new Promise((resolve, reject) => {
      const job: Job = {
        req: { id: this.nextId++, wasmPath, zkeyPath, input },
        resolve,
        reject,
        background: opts.background === true,
        circuit,
        what: opts.what,
        signal,
        onStart: opts.onStart,
        queuedAt: performance.now(),
      };
      if (opts.urgent) this.queue.unshift(job);
      else if (opts.background) this.queue.push(job);
      else {
        // Before the background requests, after the others.
        const i = this.queue.findIndex((j) => j.background);
        if (i < 0) this.queue.push(job);
        else this.queue.splice(i, 0, job);
      }
      signal?.addEventListener('abort', () => this.onAbort(job, signal), { once: true });
      this.pump();
    });
  }

  /** A request's signal fired: it leaves the queue, is stopped, or its proof was made for nothing. */
  private onAbort(job: Job, signal: AbortSignal): void {
    const reason = reasonOf(signal);
    const i = this.queue.indexOf(job);
    if (i >= 0) {
      this.queue.splice(i, 1);
      this.drop(job.circuit, job.what, 'waiting', reason, 0);
      job.reject(new ProverError('the proof was no longer needed'));
      return;
    }
    if (job.provedMs !== undefined) {
      // Made, and given up afterwards.
      this.usedMs -= job.provedMs;
      this.drop(job.circuit, job.what, 'made', reason, job.provedMs);
      return;
    }
    // Under way: the prover is asked to stop; its answer settles the request and counts its time.
    for (const [p, j] of this.busy) if (j === job && p.connected) p.send({ cancel: job.req.id });
  }

  private drop(
    circuit: string,
    what: string | undefined,
    when: string,
    reason: string,
    provedMs: number,
  ): void {
    this.droppedCount++;
    this.wastedMs += provedMs;
    this.logger?.debug(
      {
        circuit,
        ...(what !== undefined ? { for: what } : {}),
        when,
        reason,
        proved_ms: Math.round(provedMs),
      },
      'proof request dropped',
    );
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
        circuit: 'warm',
        queuedAt: performance.now(),
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
      this.settle(job, res);
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

  /** The prover answered a request: its proving time is used, or wasted if it was given up meanwhile. */
  private settle(job: Job, res: ProveResponse): void {
    const ms = job.startedAt === undefined ? 0 : performance.now() - job.startedAt;
    if (job.req.warm) {
      if (res.ok) job.resolve({ proof: res.proof, publicSignals: res.publicSignals });
      else job.reject(new ProverError(`proving failed: ${res.error}`));
      return;
    }
    job.provedMs = ms;
    // Stopped by the prover, or made while its requester gave it up (a backend that cannot stop).
    const stopped = (!res.ok && /no longer needed/.test(res.error)) || job.signal?.aborted === true;
    if (stopped) {
      this.drop(
        job.circuit,
        job.what,
        'under way',
        job.signal ? reasonOf(job.signal) : 'no longer needed',
        ms,
      );
      job.reject(new ProverError('the proof was no longer needed'));
      return;
    }
    this.usedMs += ms;
    if (res.ok) this.meter?.observe('logos_proof_seconds', ms / 1000, { circuit: job.circuit });
    if (res.ok) job.resolve({ proof: res.proof, publicSignals: res.publicSignals });
    else job.reject(new ProverError(`proving failed: ${res.error}`));
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let p = this.idle.pop();
      if (!p) {
        if (this.busy.size >= this.size) return;
        p = this.spawn();
      }
      const job = this.queue.shift()!;
      job.startedAt = performance.now();
      this.busy.set(p, job);
      p.send(job.req);
      job.onStart?.();
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
