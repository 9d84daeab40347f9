import type { Fr } from '../crypto/field.ts';
import type { Op } from '../mantle/ops.ts';
import type { OpProof, ZkSignature } from '../mantle/proofs.ts';
import type { Draft, LedgerContext } from './draft.ts';
import { fail } from './errors.ts';
import { ZKSIGN_MAX_KEYS } from './proof-system.ts';

/** What an op handler knows about where it runs. */
export interface OpEnv {
  readonly ctx: LedgerContext;
  readonly draft: Draft;
  readonly txHash: Uint8Array;
  /** The tx hash as a field element, the message of every ZK proof. */
  readonly txMsg: Fr;
  readonly opIndex: number;
  /** Slot of the block being built or applied. */
  readonly slot: bigint;
  /** Genesis mode: proofs are dummies and are not verified. */
  readonly genesis: boolean;
}

export type OpHandler<O extends Op> = (env: OpEnv, op: O['payload'], proof: OpProof) => void;

export function zkSignatureOf(proof: OpProof, opIndex: number): ZkSignature {
  if (proof.type === 'ZkSig') return proof.signature;
  if (proof.type === 'ZkAndEd25519Sigs') return proof.zk_sig;
  return fail('IncorrectProofType', `expected a ZK signature, got ${proof.type}`, opIndex);
}

/** Checks a ZkSign multi-signature by `keys` (in order, duplicates included) over the tx hash. */
export function requireZkSignature(env: OpEnv, proof: OpProof, keys: readonly Fr[]): void {
  if (env.genesis) return;
  if (keys.length > ZKSIGN_MAX_KEYS) {
    fail('TooManyZkKeys', `${keys.length} signing keys, at most ${ZKSIGN_MAX_KEYS}`, env.opIndex);
  }
  const sig = zkSignatureOf(proof, env.opIndex);
  if (
    !env.ctx.proofs.verifyZkSign({ msg: env.txMsg, publicKeys: keys }, sig, {
      txHash: env.txHash,
      opIndex: env.opIndex,
    })
  ) {
    fail(
      'InvalidZkSignature',
      'the ZK signature does not verify for the input keys and this transaction',
      env.opIndex,
    );
  }
}

export function checkedAdd(a: bigint, b: bigint, opIndex: number): bigint {
  const s = a + b;
  if (s > 0xffffffffffffffffn) fail('Overflow', 'value sum exceeds u64', opIndex);
  return s;
}

/** Refuses an input list that names a note twice. */
export function requireDistinct(ids: readonly bigint[], opIndex: number): void {
  const seen = new Set<bigint>();
  for (const id of ids) {
    if (seen.has(id)) fail('DuplicateInput', `note ${id} appears twice in the inputs`, opIndex);
    seen.add(id);
  }
}
