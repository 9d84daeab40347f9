/**
 * Groth16 verification off the event loop: a pool of worker threads, each holding the circuits'
 * prepared verification keys and its own WebAssembly curve. Requests arriving within a short window
 * (1 ms) are collected and sent as one message per worker, spread so that every worker gets a share
 * and none holds more than 32 proofs or 2 messages (one being verified, one waiting; the second only
 * once 8 proofs wait): the others wait in the pool for the next answer, and go together. A worker verifies the proofs of one circuit in a
 * message as one batch (`WasmGroth16.verifyBatch`), so proofs requested while the workers are busy
 * (those of the next blocks during sync) are checked as larger batches, which cost less per proof;
 * each answer is one boolean per proof. A worker that dies fails its requests (never answers true)
 * and is replaced.
 *
 * `withVerifierPool` gives a `ProofSystem` whose verifications go to the pool and whose proving stays
 * with the base system, so callers that settle `DeferredProofChecks` need no change.
 */
import type { Worker } from 'node:worker_threads';
import { LogosError } from '@logos-ts/shared/errors';
import { startWorker } from '@logos-ts/shared/runtime';
import { zkSignatureToBytes } from '../crypto/groth16/index.ts';
import {
  type PocPublicInputs,
  type PolPublicInputs,
  type ProofSystem,
  polPublicInputList,
  type ZkSignStatement,
} from '../ledger/proof-system.ts';
import type { ZkSignature } from '../mantle/proofs.ts';
import type { CircuitName } from './circuit-folder.ts';
import { pocPublic, poqStatement, zkSignPublic } from './groth16-system.ts';

/** How long requests are collected before a batch is sent. */
const BATCH_WINDOW_MS = 1;
/**
 * Proofs a worker holds at most (sent and not answered). A worker checks the proofs of one circuit it
 * receives together as one batch, so larger groups cost less per proof; the cap keeps every worker
 * busy when many proofs wait.
 */
const MAX_IN_FLIGHT = 32;
/**
 * Messages a worker holds at most: the one it verifies and the next, so that it never waits for the
 * main thread; requests beyond wait in the pool and are sent together, as one larger batch.
 */
const MAX_MESSAGES_IN_FLIGHT = 2;
/**
 * Proofs waiting before a worker that is busy gets its second message: fewer wait for the next worker
 * to finish (a worker with nothing gets them at once), so that requests that arrive one by one (API
 * admissions) join into larger batches instead of trailing the current one in batches of one or two.
 */
const MIN_SECOND_MESSAGE = 8;

export class VerifierPoolError extends LogosError {
  constructor(message: string) {
    super('ZK_VERIFIER_POOL', message);
  }
}

interface Job {
  readonly circuit: CircuitName;
  readonly publicInputs: readonly bigint[];
  readonly proof: Uint8Array;
  readonly resolve: (ok: boolean) => void;
  readonly reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  /** Batches sent and not answered, by id. */
  readonly inFlight: Map<number, Job[]>;
  /** Proofs sent and not answered. */
  load: number;
}

export interface VerifierPoolOptions {
  /** The snarkjs verification key of each circuit. */
  readonly verificationKeys: Record<CircuitName, unknown>;
  /** Worker threads (at least 1). */
  readonly size: number;
}

export class VerifierPool {
  private readonly slots: Slot[] = [];
  private queue: Job[] = [];
  private timer: NodeJS.Timeout | undefined;
  private nextId = 0;
  private closed = false;
  /** Messages sent to the workers so far (each one verified as a batch per circuit). */
  messagesSent = 0;

  private constructor(private readonly opts: VerifierPoolOptions) {
    for (let i = 0; i < Math.max(1, opts.size); i++) this.slots.push(this.spawn());
  }

  /** Starts the workers and waits until each has prepared its keys. */
  static async start(opts: VerifierPoolOptions): Promise<VerifierPool> {
    const pool = new VerifierPool(opts);
    try {
      await Promise.all(pool.slots.map((s) => s.ready));
    } catch (e) {
      await pool.close();
      throw e;
    }
    return pool;
  }

  get size(): number {
    return this.slots.length;
  }

  private spawn(): Slot {
    // ffjavascript (under the verifier) loads web-worker, which, inside any worker thread, expects to
    // be a web worker and reads `mod`/`type` from workerData: an empty module keeps it inert.
    const worker = startWorker(import.meta.url, 'verifier-worker', {
      workerData: {
        verificationKeys: this.opts.verificationKeys,
        mod: 'data:text/javascript,',
        type: 'module',
      },
    });
    worker.unref();
    const slot: Slot = { worker, ready: Promise.resolve(), inFlight: new Map(), load: 0 };
    slot.ready = new Promise<void>((resolve, reject) => {
      const onExit = (code: number) =>
        reject(new VerifierPoolError(`a proof verifier thread exited (code ${code}) while starting`));
      worker.once('error', reject);
      worker.once('exit', onExit);
      worker.once('message', () => {
        worker.off('error', reject);
        worker.off('exit', onExit);
        resolve();
      });
    });
    slot.ready.catch(() => {});
    worker.on('message', (msg: { id?: number; ok?: boolean; results?: boolean[]; error?: string }) => {
      if (msg.id === undefined) return;
      const jobs = slot.inFlight.get(msg.id);
      if (!jobs) return;
      slot.inFlight.delete(msg.id);
      slot.load -= jobs.length;
      if (this.queue.length > 0 && this.timer === undefined) this.flush();
      if (msg.ok) {
        for (const [i, j] of jobs.entries()) j.resolve(msg.results?.[i] === true);
      } else {
        const e = new VerifierPoolError(`proof verification failed: ${msg.error}`);
        for (const j of jobs) j.reject(e);
      }
    });
    worker.on('exit', (code) => this.onExit(slot, code));
    return slot;
  }

  private onExit(slot: Slot, code: number): void {
    const e = new VerifierPoolError(`a proof verifier thread exited (code ${code})`);
    for (const jobs of slot.inFlight.values()) for (const j of jobs) j.reject(e);
    slot.inFlight.clear();
    slot.load = 0;
    if (this.closed) return;
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots[i] = this.spawn();
    if (this.queue.length > 0 && this.timer === undefined) this.flush();
  }

  /** Whether `proof` proves the circuit's statement with these public inputs. */
  verify(circuit: CircuitName, publicInputs: readonly bigint[], proof: Uint8Array): Promise<boolean> {
    if (this.closed) return Promise.reject(new VerifierPoolError('the proof verifier pool is closed'));
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ circuit, publicInputs, proof, resolve, reject });
      this.timer ??= setTimeout(() => this.flush(), BATCH_WINDOW_MS);
    });
  }

  /**
   * Sends the collected requests: one message per worker with room, the least loaded first, each
   * holding at most `MAX_IN_FLIGHT` proofs so that no worker queues work another could take, and at
   * most `MAX_MESSAGES_IN_FLIGHT` messages; the rest waits for the next answer.
   */
  private flush(): void {
    this.timer = undefined;
    if (this.queue.length === 0) return;
    const order = this.slots
      .filter(
        (s) =>
          s.inFlight.size === 0 ||
          (s.inFlight.size < MAX_MESSAGES_IN_FLIGHT && this.queue.length >= MIN_SECOND_MESSAGE),
      )
      .sort((a, b) => a.load - b.load);
    const share = Math.ceil(this.queue.length / Math.max(1, order.length));
    for (const slot of order) {
      const room = MAX_IN_FLIGHT - slot.load;
      if (room <= 0 || this.queue.length === 0) continue;
      const part = this.queue.splice(0, Math.min(room, share));
      const id = this.nextId++;
      slot.inFlight.set(id, part);
      slot.load += part.length;
      this.messagesSent++;
      slot.worker.postMessage({
        id,
        jobs: part.map((j) => ({ circuit: j.circuit, publicInputs: j.publicInputs, proof: j.proof })),
      });
    }
  }

  /** Stops the workers; requests not answered yet fail. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const e = new VerifierPoolError('the proof verifier pool is closed');
    for (const j of this.queue) j.reject(e);
    this.queue = [];
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}

/** A proof system verifying on the pool and proving with `base`. Closing it closes the pool only. */
export function withVerifierPool(base: ProofSystem, pool: VerifierPool): ProofSystem {
  return {
    name: `${base.name} (${pool.size} verifier threads)`,
    secure: base.secure,
    verifyZkSign: (st: ZkSignStatement, sig: ZkSignature) =>
      pool.verify('zksig', zkSignPublic(st), zkSignatureToBytes(sig)),
    proveZkSign: (msg, sks, opts) => base.proveZkSign(msg, sks, opts),
    verifyPol: (inputs: PolPublicInputs, proof: Uint8Array) =>
      pool.verify('pol', polPublicInputList(inputs), proof),
    provePol: (inputs, witness, opts) => base.provePol(inputs, witness, opts),
    warmPolProver: () => base.warmPolProver?.() ?? Promise.resolve(),
    verifyPoc: (inputs: PocPublicInputs, proof: Uint8Array) => pool.verify('poc', pocPublic(inputs), proof),
    provePoc: (inputs, witness) => base.provePoc(inputs, witness),
    verifyPoq: async (inputs, keyNullifier, proof) => {
      const st = poqStatement(inputs, keyNullifier, proof);
      return st !== undefined && pool.verify('poq', st.publicInputs, st.proof);
    },
    provePoq: (inputs, witness, opts) => base.provePoq(inputs, witness, opts),
    cannotProve: (circuit) => base.cannotProve?.(circuit),
    close: () => pool.close(),
  };
}
