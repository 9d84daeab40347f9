/**
 * PoW ticket attempts for one block, run by the worker threads (ticket-worker.ts).
 *
 * One attempt, as the reference's: a fresh uniformly random ZK secret key `sk`, `pk = compress(KDF, sk)`,
 * `ticket = digest([epoch_nonce, block_hash mod p, pk])`; it wins when `ticket < target`.
 *
 * The sponge state after absorbing `epoch_nonce` and `block_hash mod p` is the same for every attempt on
 * a block, so it is computed once per block (`ticketPrefix`); an attempt then costs exactly three
 * Poseidon2 permutations: one for `pk`, one absorbing `pk`, one absorbing the padding 1. The ticket is
 * the same value `powTicket` computes (tested against it).
 *
 * Secret keys are drawn by rejection sampling: 32 CSPRNG bytes (bulk `crypto.getRandomValues`) read
 * little-endian with the top two bits cleared (a 254-bit integer), kept when below p (about 76% of the
 * draws), which gives a uniform field element.
 */
import { FR_MODULUS, frFromBytesModOrder } from '../crypto/field.ts';
import { permute } from '../crypto/poseidon2/index.ts';
import { zkPublicKey } from '../crypto/zk-keys.ts';

const P = FR_MODULUS;
/** Permutations one attempt costs after the per-block prefix (see the top of this file). */
export const PERMUTATIONS_PER_ATTEMPT = 3;

export type SpongeState = readonly [bigint, bigint, bigint];

/** The sponge state after absorbing `epochNonce` and `blockHash mod p` (each absorb then permute). */
export function ticketPrefix(epochNonce: bigint, blockHash: Uint8Array): SpongeState {
  if (epochNonce < 0n || epochNonce >= P) throw new RangeError('epoch nonce is not a field element');
  const s = permute([epochNonce, 0n, 0n]);
  return permute([(s[0] + frFromBytesModOrder(blockHash)) % P, s[1], s[2]]);
}

/** The ticket of `pk` from a block's prefix state: absorb pk, permute, absorb 1, permute, lane 0. */
export function ticketFromPrefix(prefix: SpongeState, publicKey: bigint): bigint {
  const s = permute([(prefix[0] + publicKey) % P, prefix[1], prefix[2]]);
  return permute([(s[0] + 1n) % P, s[1], s[2]])[0];
}

/** Draws uniformly random field elements from bulk CSPRNG bytes. */
export class SecretKeySource {
  private readonly words: BigUint64Array;
  private next: number;

  constructor(batch = 256) {
    this.words = new BigUint64Array(4 * batch);
    this.next = this.words.length;
  }

  draw(): bigint {
    for (;;) {
      if (this.next >= this.words.length) {
        crypto.getRandomValues(this.words);
        this.next = 0;
      }
      const w = this.words;
      const i = this.next;
      this.next += 4;
      const x =
        w[i]! | (w[i + 1]! << 64n) | (w[i + 2]! << 128n) | ((w[i + 3]! & 0x3fff_ffff_ffff_ffffn) << 192n);
      if (x < P) return x;
    }
  }
}

export interface TicketWin {
  readonly ticket: bigint;
  readonly secretKey: bigint;
  readonly publicKey: bigint;
}

/**
 * Runs attempts on one block until `maxAttempts` are done or `maxMs` milliseconds passed (checked every
 * 8 attempts); returns the number made and the winners.
 */
export function searchTickets(
  prefix: SpongeState,
  target: bigint,
  keys: SecretKeySource,
  maxAttempts: number,
  maxMs: number,
): { attempts: number; winners: TicketWin[] } {
  const winners: TicketWin[] = [];
  const deadline = performance.now() + maxMs;
  let attempts = 0;
  while (attempts < maxAttempts) {
    const secretKey = keys.draw();
    const publicKey = zkPublicKey(secretKey);
    const ticket = ticketFromPrefix(prefix, publicKey);
    attempts++;
    if (ticket < target) winners.push({ ticket, secretKey, publicKey });
    if ((attempts & 7) === 0 && performance.now() >= deadline) break;
  }
  return { attempts, winners };
}
