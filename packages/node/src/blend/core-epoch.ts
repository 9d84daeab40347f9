/**
 * One epoch of the Blend core role (F `services/blend/src/core/mod.rs`, `old_epoch.rs`): its processor,
 * its message scheduler and the blending tokens of the layers removed in it. At each new epoch the
 * current core epoch's scheduler is rotated (scheduling/message-scheduler.ts): the old epoch keeps
 * releasing what it holds through the transition period. When that period ends, the old epoch's
 * activity proof is the token nearest to the new epoch's randomness (F
 * `OldEpochBlendingTokenCollector::compute_activity_proof`). Cover messages use core proofs made
 * ahead in the background.
 */
import type { Logger } from 'pino';
import type { BlakeRng } from '../crypto/blend/blake-rng.ts';
import type { Fr } from '../crypto/field.ts';
import { blendingTokenBytes, tokenDistance, tokenEvaluation } from '../ledger/sdp-rewards.ts';
import type { BlendActivityProof } from '../mantle/ops.ts';
import { type BlendingToken, PayloadType } from './message/index.ts';
import type { EpochProcessor, LayerProof, Unwrapped } from './processor.ts';
import {
  EpochMessageScheduler,
  type OldEpochMessageScheduler,
  type SchedulerSettings,
} from './scheduling/message-scheduler.ts';

/** A message this node released from its scheduler: a message to send on, or a payload to deliver. */
export type Processed =
  | { readonly kind: 'message'; readonly bytes: Uint8Array }
  | { readonly kind: 'payload'; readonly type: PayloadType; readonly body: Uint8Array };

/** One epoch of the core role: its processor, scheduler and the tokens of the layers removed. */
export interface CoreEpoch {
  readonly processor: EpochProcessor;
  scheduler: EpochMessageScheduler<Processed, Uint8Array> | OldEpochMessageScheduler<Processed, Uint8Array>;
  readonly tokens: BlendingToken[];
}

/**
 * The core epoch of a new epoch (null when this node is not core in it, `processor` null), rotated
 * from `previous`: the previous epoch's scheduler becomes its old-epoch scheduler (in place), and the
 * new one takes over what it still had to release.
 */
export function nextCoreEpoch(
  previous: CoreEpoch | null,
  processor: EpochProcessor | null,
  settings: SchedulerSettings,
  rng: BlakeRng,
  /** The new epoch's first round. */
  round: bigint,
): CoreEpoch | null {
  const info = (p: EpochProcessor) => ({ coreQuota: p.quota.quotas.core, epoch: p.epoch });
  let scheduler: CoreEpoch['scheduler'] | null = null;
  if (previous !== null && previous.scheduler instanceof EpochMessageScheduler && processor !== null) {
    const r = previous.scheduler.rotateEpoch(info(processor), settings, round);
    scheduler = r.current;
    previous.scheduler = r.old;
  } else if (previous !== null && previous.scheduler instanceof EpochMessageScheduler) {
    const r = previous.scheduler.rotateEpoch(
      { coreQuota: 0n, epoch: previous.processor.epoch + 1 },
      settings,
      round,
    );
    previous.scheduler = r.old;
  } else if (processor !== null) {
    scheduler = EpochMessageScheduler.create<Processed, Uint8Array>(
      info(processor),
      rng.clone(),
      settings,
      round,
    );
  }
  return processor !== null && scheduler !== null ? { processor, scheduler, tokens: [] } : null;
}

/**
 * A message with layers removed here: their tokens are kept and what remains is scheduled for
 * release (a message to send on, or a payload to deliver; a cover message's payload is dropped).
 */
export function scheduleUnwrapped(ce: CoreEpoch, out: Exclude<Unwrapped, { kind: 'not-for-us' }>): void {
  ce.tokens.push(...out.tokens);
  if (out.kind === 'forward') ce.scheduler.scheduleProcessedMessage({ kind: 'message', bytes: out.message });
  else if (out.payloadType !== PayloadType.Cover)
    ce.scheduler.scheduleProcessedMessage({ kind: 'payload', type: out.payloadType, body: out.body });
}

/**
 * The activity proof of a core epoch whose transition is over: of its blending tokens, the one whose
 * hash is nearest (Hamming distance) to the next epoch's randomness `nonce`, if within the activity
 * threshold; null when none is.
 */
export function activityProof(
  ce: CoreEpoch,
  nonce: Fr,
  sensitivity: bigint,
): { readonly proof: BlendActivityProof; readonly distance: bigint } | null {
  const epoch = ce.processor.epoch;
  const size = BigInt(ce.processor.state.membership.size);
  const ev = tokenEvaluation(ce.processor.quota.quotas.core, size, sensitivity);
  let best: { proof: BlendActivityProof; distance: bigint } | null = null;
  for (const t of ce.tokens) {
    const proof: BlendActivityProof = { epoch, ...t };
    const distance = tokenDistance(blendingTokenBytes(proof), ev.token_count_byte_len, nonce);
    if (distance <= ev.activity_threshold && (best === null || distance < best.distance))
      best = { proof, distance };
  }
  return best;
}

/** Core proofs kept ready for cover messages, in messages' worth. */
const COVER_PROOFS_AHEAD = 2;

/** The core proofs of quota made ahead, in the background, for the current core epoch's cover messages. */
export class CoverProofs {
  private ready: LayerProof[] = [];
  private proving = 0;
  /** The current epoch's cover proofs: aborted when the epoch ends (those being made and those kept). */
  private epochProofs = new AbortController();

  constructor(
    private readonly layers: number,
    /** The current core epoch, null when no cover proofs are made (none, closed, or no prover of quota). */
    private readonly current: () => CoreEpoch | null,
    private readonly logger: Logger,
  ) {}

  /** Drops the proofs made for the previous epoch, and stops those still being made. */
  reset(): void {
    this.epochProofs.abort('the epoch of the cover proofs ended');
    this.epochProofs = new AbortController();
    this.ready = [];
  }

  /** One message's worth of proofs, if ready (then more are made). */
  take(): LayerProof[] | null {
    if (this.ready.length < this.layers) {
      this.logger.debug({ ready: this.ready.length }, 'no core proofs ready: a cover message is skipped');
      this.refill();
      return null;
    }
    const proofs = this.ready.splice(0, this.layers);
    this.refill();
    return proofs;
  }

  /** Keeps `COVER_PROOFS_AHEAD` messages' worth of core proofs made in the background. */
  refill(): void {
    const ce = this.current();
    if (ce === null) return;
    const want = COVER_PROOFS_AHEAD * this.layers;
    while (this.ready.length + this.proving < want && ce.processor.quota.remaining('core') > 0n) {
      this.proving++;
      void ce.processor
        .proveLayer('core', {}, { background: true, signal: this.epochProofs.signal, what: 'cover' })
        .then((p) => {
          if (p !== null && this.current() === ce) this.ready.push(p);
        })
        .catch((e: Error) => {
          // One stopped at the epoch's end was dropped on purpose (logged by the prover pool).
          if (!/no longer needed/.test(e.message))
            this.logger.warn({ err: e.message }, 'a core proof of quota failed');
        })
        .finally(() => {
          this.proving--;
        });
    }
  }
}
