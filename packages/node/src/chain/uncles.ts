/**
 * The validity rules of the uncles a block carries (F: `services/chain/chain-service/src/uncle.rs`).
 * A block is valid only if every uncle it carries is:
 * - strictly older than the block;
 * - not on the chain the block extends, and with its parent on that chain, within the uncle window
 *   (the chain is walked back from the block's parent while its slots are ≥ slot − window, and never
 *   below the oldest block of the tree);
 * - a header with a non-genesis slot, signed by its leader key;
 * - carrying a proof of leadership that verifies against the ledger state of its parent.
 * Nothing else is required: an uncle need not be a block this node has seen, and the rules do not look at
 * the slots the chain or other uncles occupy (uncle selection does).
 */

import { LogosError } from '@logos-ts/shared/errors';
import { encodeHeader, headerId, type SignedHeader } from '../block/header.ts';
import { bytesToHex } from '../codec/hex.ts';
import type { BlockNode } from '../consensus/engine.ts';
import { ed25519Verify } from '../crypto/ed25519.ts';
import { epochStateAt, polPublicInputs } from '../ledger/apply.ts';
import type { LedgerConfig } from '../ledger/parameters.ts';
import { PROOFS_ALREADY_VERIFIED, type ProofSystem } from '../ledger/proof-system.ts';
import type { LedgerState } from '../ledger/state.ts';

/** Why an uncle is invalid: the reference's variant name (F `UncleError`). */
export type UncleErrorReason =
  | 'NotStrictlyOlder'
  | 'ParentNotOnChain'
  | 'OnChain'
  | 'InvalidSlot'
  | 'InvalidSignature'
  | 'InvalidProof';

/** The error codes, one per reason. */
export type UncleErrorCode =
  | 'UNCLE_NOT_STRICTLY_OLDER'
  | 'UNCLE_PARENT_NOT_ON_CHAIN'
  | 'UNCLE_ON_CHAIN'
  | 'UNCLE_INVALID_SLOT'
  | 'UNCLE_INVALID_SIGNATURE'
  | 'UNCLE_INVALID_PROOF';

const RULES: Record<UncleErrorReason, { code: UncleErrorCode; text: string }> = {
  NotStrictlyOlder: { code: 'UNCLE_NOT_STRICTLY_OLDER', text: 'not strictly older than the block' },
  ParentNotOnChain: {
    code: 'UNCLE_PARENT_NOT_ON_CHAIN',
    text: 'parent not on the chain that the block is extending, within the window',
  },
  OnChain: { code: 'UNCLE_ON_CHAIN', text: 'on the chain that the block is extending' },
  InvalidSlot: { code: 'UNCLE_INVALID_SLOT', text: 'at a slot no uncle can be proposed for' },
  InvalidSignature: { code: 'UNCLE_INVALID_SIGNATURE', text: 'invalid header signature' },
  InvalidProof: { code: 'UNCLE_INVALID_PROOF', text: 'invalid proof of leadership' },
};

export interface InvalidUncleMeta {
  readonly reason: UncleErrorReason;
  /** The uncle's header id (hex). */
  readonly uncle: string;
  readonly [key: string]: unknown;
}

export class InvalidUncle extends LogosError<InvalidUncleMeta> {
  declare readonly code: UncleErrorCode;

  constructor(reason: UncleErrorReason, uncle: string) {
    const rule = RULES[reason];
    super(rule.code, `invalid uncle ${uncle}: ${rule.text}`, { meta: { reason, uncle } });
  }

  get reason(): UncleErrorReason {
    return this.meta.reason;
  }

  get uncle(): string {
    return this.meta.uncle;
  }
}
LogosError.register(InvalidUncle);

/** What the rules read: the block tree, the ledger states of its blocks, the parameters. */
export interface UncleContext {
  /** A block of the tree. */
  node(id: string): BlockNode | undefined;
  /** The oldest block of the tree (the LIB). */
  readonly oldest: string;
  /** The ledger state after a block of the tree. */
  state(id: string): LedgerState | undefined;
  /** The uncle window in slots (W / f). */
  readonly windowSlots: bigint;
  readonly config: LedgerConfig;
  readonly proofs: ProofSystem;
}

/**
 * Checks the uncles of a block at `slot` on `parent` (a block of the tree); throws `InvalidUncle` for the
 * first invalid one, in the reference's order of checks.
 */
export async function verifyUncles(
  uncles: readonly SignedHeader[],
  parent: string,
  slot: bigint,
  ctx: UncleContext,
): Promise<void> {
  if (uncles.length === 0) return;
  const ids = uncles.map((u) => bytesToHex(headerId(u.header)));
  uncles.forEach((u, i) => {
    if (u.header.slot >= slot) throw new InvalidUncle('NotStrictlyOlder', ids[i]!);
  });

  // Ancestry: walk back from the parent to the start of the window.
  const windowStart = slot > ctx.windowSlots ? slot - ctx.windowSlots : 0n;
  const uncleIds = new Set(ids);
  const uncleParents = new Set(uncles.map((u) => bytesToHex(u.header.parent_block)));
  const found = new Set<string>();
  for (let cur = ctx.node(parent); cur !== undefined && cur.slot >= windowStart; ) {
    if (uncleIds.has(cur.id)) throw new InvalidUncle('OnChain', cur.id);
    if (uncleParents.has(cur.id)) found.add(cur.id);
    if (cur.id === ctx.oldest) break;
    cur = ctx.node(cur.parent);
  }
  uncles.forEach((u, i) => {
    if (!found.has(bytesToHex(u.header.parent_block))) throw new InvalidUncle('ParentNotOnChain', ids[i]!);
  });

  for (let i = 0; i < uncles.length; i++) {
    const u = uncles[i]!;
    const h = u.header;
    if (h.slot === 0n) throw new InvalidUncle('InvalidSlot', ids[i]!);
    if (!ed25519Verify(h.proof_of_leadership.leader_key, encodeHeader(h), u.signature)) {
      throw new InvalidUncle('InvalidSignature', ids[i]!);
    }
    // The parent is on the chain within the tree, so its state is held.
    const parentState = ctx.state(bytesToHex(h.parent_block))!;
    let ok: boolean;
    try {
      const es = epochStateAt(parentState, { config: ctx.config, proofs: PROOFS_ALREADY_VERIFIED }, h.slot);
      ok = await ctx.proofs.verifyPol(
        polPublicInputs(es, parentState.utxos.root(), h),
        h.proof_of_leadership.proof,
      );
    } catch {
      ok = false;
    }
    if (!ok) throw new InvalidUncle('InvalidProof', ids[i]!);
  }
}
