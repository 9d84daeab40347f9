/**
 * The units of a proof that threads take from a queue: a range of windows of one MSM, or the
 * coset evaluation of one QAP polynomial (inverse FFT, shift to the odd coset, FFT). A task is plain
 * data (addresses into the shared memory), so it crosses to a worker as it is.
 */
import type { EngineInstance } from './engine/instance.ts';
import { type MsmInput, msmWindows } from './msm.ts';

export type Task = (
  | {
      readonly kind: 'msm';
      readonly input: MsmInput;
      readonly w0: number;
      readonly w1: number;
      /** Where windows w0..w1−1's sums go. */
      readonly out: number;
    }
  | {
      readonly kind: 'coset';
      /** The evaluations over the domain, replaced by those over its odd coset. */
      readonly values: number;
      readonly logDomain: number;
      readonly roots: number;
      readonly rootsInv: number;
      readonly shift: number;
      readonly nInv: number;
    }
) & {
  /** What the task is part of (`msm A`, `fft`, …), for the proof's timings. */
  readonly label: string;
};

/** Runs a task in this thread; false if it was cancelled before its end. */
export function runTask(e: EngineInstance, t: Task, heap: number, cancelled: () => boolean): boolean {
  if (t.kind === 'msm') return msmWindows(e, t.input, t.w0, t.w1, heap, t.out, cancelled);
  // evaluations → coefficients (inverse FFT, the 1/n folded into the shift) → values on the coset
  e.call('fr_fft', t.values, t.logDomain, t.rootsInv);
  e.call('fr_scalePowers', t.values, 2 ** t.logDomain, t.shift, t.nInv);
  if (cancelled()) return false;
  e.call('fr_fft', t.values, t.logDomain, t.roots);
  return true;
}
