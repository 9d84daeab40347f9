/**
 * The Blend membership of an epoch and the epoch state the Blend service works with
 * (F: blend/scheduling/src/membership.rs `Membership`, services/blend/src/membership/{service,chain,
 * node_id/libp2p}.rs, services/blend/src/epoch.rs).
 *
 * The members are the epoch's active Blend declarations (the SDP snapshot frozen with the epoch
 * state: `LedgerState.sdp.snapshot` for `epoch_state`), each becoming a core node whose provider id
 * is its Ed25519 key and its libp2p peer id, sorted by zk id: a member's index is its position, the
 * index its proofs of selection designate and the leaf of its zk id in the core Merkle tree (the
 * same order as the ledger's `membershipOf`). A declaration whose provider id is not a curve point
 * (no peer id can be made of it) is left out before the indices are assigned, as the reference
 * does, and so is one without a locator (where the reference would stop). This node is a member
 * when one of them has its signing key.
 *
 * The node of each encapsulation layer is the member at the index its proof of selection
 * designates (`selectionIndex(r, N)`), so a message may go through one node twice, or through this
 * node (`layerNodes`; F: message_blend/crypto/{core_and_leader,leader}/send.rs
 * `encapsulate_payload`). `chooseRemoteNodes` draws distinct members other than this node, as the
 * reference's `filter_and_choose_remote_nodes` (`rand`'s reservoir sampling, `scheduling/rng.ts`).
 */

import { publicKeyFromRaw } from '@libp2p/crypto/keys';
import { peerIdFromPublicKey } from '@libp2p/peer-id';
import { LogosError } from '@logos-ts/shared/errors';
import { bytesToHex } from '../codec/hex.ts';
import type { PoqPublicInputs } from '../crypto/blend/poq.ts';
import { isEd25519Point } from '../crypto/ed25519.ts';
import type { Fr } from '../crypto/field.ts';
import type { Declaration, EpochState, LedgerState } from '../ledger/state.ts';
import { locatorToString } from '../mantle/locator.ts';
import { chooseMultiple, type RngCore } from './scheduling/rng.ts';

/** The PoQ circuit's core Merkle tree holds at most 2^20 zk ids (F: `CORE_MERKLE_TREE_HEIGHT`). */
export const MAX_CORE_MEMBERS = 1 << 20;

export class BlendMembershipError extends LogosError {
  constructor(message: string, meta: Record<string, unknown> = {}) {
    super('BLEND_MEMBERSHIP', message, { meta });
  }
}
LogosError.register(BlendMembershipError);

/** A core node of the epoch. */
export interface BlendMember {
  /** Its position in the membership. */
  readonly index: number;
  /** The provider id: its Ed25519 public key, hex. */
  readonly providerId: string;
  readonly publicKey: Uint8Array;
  /** The libp2p peer id of that key. */
  readonly peerId: string;
  readonly zkId: Fr;
  /** Its declared locators (multiaddrs); the reference dials the first one. */
  readonly locators: readonly string[];
}

/** A core node as given to `BlendMembership.fromNodes`, in index order. */
export interface BlendNodeInput {
  readonly publicKey: Uint8Array;
  readonly zkId: Fr;
  readonly locators: readonly string[];
}

/** A declaration left out of the membership, and why. */
export interface DroppedDeclaration {
  readonly providerId: string;
  readonly reason: 'provider id is not an Ed25519 point' | 'no locator';
}

/** The peer id of an Ed25519 public key (F: `PeerId::from_public_key`). */
export function peerIdOfProvider(publicKey: Uint8Array): string {
  if (publicKey.length !== 32 || !isEd25519Point(publicKey)) {
    throw new BlendMembershipError('a provider id must be an Ed25519 public key', {
      providerId: bytesToHex(publicKey),
    });
  }
  return peerIdFromPublicKey(publicKeyFromRaw(publicKey)).toString();
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export class BlendMembership {
  readonly members: readonly BlendMember[];
  /** This node's index, or null when it is not a member. */
  readonly localIndex: number | null;
  readonly #byPeerId: ReadonlyMap<string, BlendMember>;

  private constructor(members: BlendMember[], localIndex: number | null) {
    this.members = members;
    this.localIndex = localIndex;
    this.#byPeerId = new Map(members.map((m) => [m.peerId, m]));
  }

  /**
   * The membership of `nodes` in the order given (F: `Membership::new`); `localPublicKey` is this
   * node's signing key. Two nodes with one key are refused.
   */
  static fromNodes(nodes: readonly BlendNodeInput[], localPublicKey: Uint8Array | null): BlendMembership {
    const members: BlendMember[] = [];
    const seen = new Set<string>();
    let localIndex: number | null = null;
    for (const [index, n] of nodes.entries()) {
      const peerId = peerIdOfProvider(n.publicKey);
      if (seen.has(peerId)) {
        throw new BlendMembershipError('the membership has a duplicate node', {
          providerId: bytesToHex(n.publicKey),
        });
      }
      seen.add(peerId);
      members.push({
        index,
        providerId: bytesToHex(n.publicKey),
        publicKey: n.publicKey,
        peerId,
        zkId: n.zkId,
        locators: n.locators,
      });
      if (localPublicKey !== null && sameBytes(n.publicKey, localPublicKey)) localIndex = index;
    }
    return new BlendMembership(members, localIndex);
  }

  /**
   * The membership of an epoch's active declarations (F: `membership_info_from_epoch_state`):
   * Blend declarations only, those without a usable provider id or locator left out, sorted by zk
   * id. Refuses two declarations with one zk id or one provider, and more than `MAX_CORE_MEMBERS`.
   */
  static fromDeclarations(
    declarations: Iterable<Pick<Declaration, 'service_type' | 'provider_id' | 'zk_id' | 'locators'>>,
    localPublicKey: Uint8Array | null,
  ): { membership: BlendMembership; dropped: DroppedDeclaration[] } {
    const nodes: BlendNodeInput[] = [];
    const dropped: DroppedDeclaration[] = [];
    for (const d of declarations) {
      if (d.service_type !== 'BN') continue;
      const providerId = bytesToHex(d.provider_id);
      // inferred: F expects at least one locator (the ledger admits 1 to 8) and would stop on none;
      // such a declaration is left out here like an undecodable provider id (docs/design/fidelity.md).
      if (d.locators.length === 0) {
        dropped.push({ providerId, reason: 'no locator' });
        continue;
      }
      if (d.provider_id.length !== 32 || !isEd25519Point(d.provider_id)) {
        dropped.push({ providerId, reason: 'provider id is not an Ed25519 point' });
        continue;
      }
      nodes.push({ publicKey: d.provider_id, zkId: d.zk_id, locators: d.locators.map(locatorToString) });
    }
    if (nodes.length > MAX_CORE_MEMBERS) {
      throw new BlendMembershipError(`more than ${MAX_CORE_MEMBERS} core nodes`, { size: nodes.length });
    }
    nodes.sort((a, b) => (a.zkId < b.zkId ? -1 : a.zkId > b.zkId ? 1 : 0));
    for (let i = 1; i < nodes.length; i++) {
      if (nodes[i]!.zkId === nodes[i - 1]!.zkId) {
        throw new BlendMembershipError('two core nodes have the same zk id', { zkId: nodes[i]!.zkId });
      }
    }
    return { membership: BlendMembership.fromNodes(nodes, localPublicKey), dropped };
  }

  get size(): number {
    return this.members.length;
  }

  get isEmpty(): boolean {
    return this.members.length === 0;
  }

  get containsLocal(): boolean {
    return this.localIndex !== null;
  }

  /** The zk ids in index order: the leaves of the epoch's core Merkle tree. */
  get zkIds(): Fr[] {
    return this.members.map((m) => m.zkId);
  }

  contains(peerId: string): boolean {
    return this.#byPeerId.has(peerId);
  }

  byPeerId(peerId: string): BlendMember | undefined {
    return this.#byPeerId.get(peerId);
  }

  getNodeAt(index: number): BlendMember | undefined {
    return Number.isInteger(index) && index >= 0 ? this.members[index] : undefined;
  }

  /**
   * The members receiving the layers of a message, one per index its proofs of selection designate
   * (repetitions and this node included). Refuses an index outside the membership.
   */
  layerNodes(indices: readonly (number | bigint)[]): BlendMember[] {
    return indices.map((i) => {
      const m =
        typeof i === 'bigint'
          ? i < BigInt(this.size)
            ? this.members[Number(i)]
            : undefined
          : this.getNodeAt(i);
      if (m === undefined) {
        throw new BlendMembershipError(`no member at index ${i} of ${this.size}`, {
          index: i,
          size: this.size,
        });
      }
      return m;
    });
  }

  /**
   * `count` distinct members, none of them this node nor in `exclude` (peer ids); fewer when there
   * are not enough (F: `filter_and_choose_remote_nodes`, in its order).
   */
  chooseRemoteNodes(count: number, exclude: ReadonlySet<string>, rng: RngCore): BlendMember[] {
    const candidates = this.members.filter((m) => !exclude.has(m.peerId) && m.index !== this.localIndex);
    return chooseMultiple(rng, candidates, count);
  }
}

/**
 * What Blend needs of an epoch (F: membership/chain.rs `BlendEpochState`): its number and nonce,
 * the public inputs of a proof of leadership quota (the aged UTXO root and the lottery values), the
 * Blend PoW threshold, and the membership.
 */
export interface BlendEpochState {
  readonly epoch: number;
  readonly nonce: Fr;
  /** Root of the epoch's aged UTXO set (the PoL `aged_root`). */
  readonly aged: Fr;
  readonly lottery0: Fr;
  readonly lottery1: Fr;
  /** d_blend, the Blend PoW threshold of the epoch. */
  readonly powDifficulty: bigint;
  readonly membership: BlendMembership;
  /** Declarations left out of the membership. */
  readonly dropped: readonly DroppedDeclaration[];
}

/** The Blend state of an epoch from its epoch state and its active declarations. */
export function blendEpochState(
  epochState: EpochState,
  activeDeclarations: Iterable<Declaration>,
  localPublicKey: Uint8Array | null,
): BlendEpochState {
  const { membership, dropped } = BlendMembership.fromDeclarations(activeDeclarations, localPublicKey);
  return {
    epoch: epochState.epoch,
    nonce: epochState.nonce,
    aged: epochState.utxos.root(),
    lottery0: epochState.lottery.t0,
    lottery1: epochState.lottery.t1,
    powDifficulty: epochState.blend_pow_difficulty,
    membership,
    dropped,
  };
}

/** The Blend state of a ledger state's current epoch (its `epoch_state` and SDP snapshot). */
export function blendEpochStateOf(state: LedgerState, localPublicKey: Uint8Array | null): BlendEpochState {
  return blendEpochState(state.epoch_state, state.sdp.snapshot.values(), localPublicKey);
}

/**
 * The public inputs of the epoch's proofs of quota, without the per-proof signing key (F:
 * `PoQVerificationInputsMinusSigningKey`, assembled in services/blend/src/core/mod.rs): the core
 * root and quota, the leadership inputs (aged root, epoch nonce, quota per won slot, lottery values)
 * and the PoW inputs (threshold, quota per solution).
 */
export type EpochPoqInputs = Omit<PoqPublicInputs, 'signing_key'>;

/**
 * The epoch's proof-of-quota inputs from its Blend state, its quotas (`quota.ts`) and the root of
 * the core Merkle tree over `membership.zkIds`.
 */
export function epochPoqInputs(
  state: BlendEpochState,
  quotas: { readonly core: bigint; readonly leadership: bigint; readonly pow: bigint },
  zkRoot: Fr,
): EpochPoqInputs {
  return {
    core: { zk_root: zkRoot, quota: quotas.core },
    leader: {
      pol_ledger_aged: state.aged,
      pol_epoch_nonce: state.nonce,
      message_quota: quotas.leadership,
      lottery_0: state.lottery0,
      lottery_1: state.lottery1,
    },
    pow: { pow_blend_difficulty: state.powDifficulty, pow_quota: quotas.pow },
  };
}
