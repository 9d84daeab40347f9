/**
 * Solves the epoch's Blend puzzle (F `blend/proofs/src/quota/pow.rs` `solve_puzzle`: a nonce whose
 * ticket `Poseidon2([BLEND_POW_V1, epoch nonce, nonce])` is below the epoch's difficulty) on a worker
 * thread at the lowest priority (puzzle-worker.ts), one search at a time, so the search never holds
 * the event loop. A zero difficulty admits no ticket: nothing is searched.
 * inferred: where and how the search runs (docs/design/fidelity.md "Blend puzzle search")
 */
import type { Worker } from 'node:worker_threads';
import { startWorker } from '@logos-ts/shared/runtime';
import type { Fr } from '../crypto/field.ts';

interface Solution {
  readonly nonce: Fr;
  readonly attempts: number;
}

export class PuzzleSolver {
  private worker: Worker | null = null;
  private nextId = 0;
  private current: { id: number; resolve: (s: Solution | undefined) => void } | null = null;

  /** A solution, or undefined when the difficulty admits none or the search was cancelled. */
  solve(epochNonce: Fr, difficulty: Fr, signal?: AbortSignal): Promise<Solution | undefined> {
    if (difficulty === 0n || signal?.aborted) return Promise.resolve(undefined);
    this.cancel();
    const worker = this.ensureWorker();
    const id = ++this.nextId;
    return new Promise((resolve) => {
      this.current = { id, resolve };
      signal?.addEventListener('abort', () => this.cancel(id), { once: true });
      worker.postMessage({ type: 'task', id, epochNonce, difficulty });
    });
  }

  /** Stops the running search (its promise resolves with undefined). */
  cancel(id?: number): void {
    const c = this.current;
    if (c === null || (id !== undefined && c.id !== id)) return;
    this.current = null;
    this.worker?.postMessage({ type: 'idle' });
    c.resolve(undefined);
  }

  async close(): Promise<void> {
    this.cancel();
    const w = this.worker;
    this.worker = null;
    if (w !== null) await w.terminate();
  }

  private ensureWorker(): Worker {
    if (this.worker !== null) return this.worker;
    const w = startWorker(import.meta.url, 'puzzle-worker');
    w.unref();
    w.on('message', (m: { type: string; id?: number; nonce?: Fr; attempts?: number }) => {
      const c = this.current;
      if (m.type !== 'solution' || c === null || c.id !== m.id) return;
      this.current = null;
      c.resolve({ nonce: m.nonce!, attempts: m.attempts! });
    });
    w.on('error', () => {
      // A dead worker: the search in progress ends without a solution; the next one starts a new worker.
      this.worker = null;
      this.cancel();
    });
    this.worker = w;
    return w;
  }
}
