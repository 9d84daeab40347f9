/**
 * A tiny stand-in for the chain as the transaction-building operations read it: canonical blocks that
 * carry only their voucher commitment, a tip ledger state holding only what these operations read
 * (voucher snapshot and nullifiers, claimable rewards, SDP declarations, notes), a LIB height, reorgs.
 */
import type { IChain } from '../../src/chain/index.ts';
import { bytesToHex } from '../../src/codec/hex.ts';
import type { Fr } from '../../src/crypto/field.ts';
import type { Declaration, LedgerState, NoteRecord } from '../../src/ledger/state.ts';
import { VoucherTree } from '../../src/ledger/trees/voucher-tree.ts';
import { bigintKeys, PMap, stringKeys } from '../../src/util/pmap.ts';

const idOf = (height: number, salt: number) => {
  const id = new Uint8Array(32);
  new DataView(id.buffer).setUint32(0, height);
  new DataView(id.buffer).setUint32(4, salt);
  return id;
};

export class VoucherChain {
  /** Canonical block ids by height; 0 is the genesis. */
  ids: Uint8Array[] = [idOf(0, 0)];
  readonly blocks = new Map<
    string,
    { header: { parent_block: Uint8Array; proof_of_leadership: { voucher_cm: Fr } } }
  >();
  cms: Fr[] = [];
  snapshotCount = 0;
  nullifiers: Fr[] = [];
  claimableRewards = 100n;
  libHeight = 0;
  declarations = new Map<string, Declaration>();
  /** Notes at the tip and in the aged snapshot. */
  notes: [Fr, NoteRecord][] = [];
  agedNotes: [Fr, NoteRecord][] = [];
  readonly config = { consensus: { security_param: 4 } };
  #salt = 0;

  constructor(readonly securityParam = 4) {
    this.config.consensus.security_param = securityParam;
  }

  /** Appends canonical blocks carrying these voucher commitments. */
  extend(...cms: Fr[]): void {
    for (const cm of cms) {
      const parent = this.ids[this.ids.length - 1]!;
      const id = idOf(this.ids.length, this.#salt);
      this.blocks.set(bytesToHex(id), {
        header: { parent_block: parent, proof_of_leadership: { voucher_cm: cm } },
      });
      this.ids.push(id);
      this.cms.push(cm);
    }
  }

  /** Replaces the blocks above `height` with new ones. */
  reorg(height: number, ...cms: Fr[]): void {
    this.#salt++;
    this.ids.length = height + 1;
    this.cms.length = height;
    this.extend(...cms);
  }

  state(): LedgerState {
    let tree = VoucherTree.empty();
    for (const cm of this.cms.slice(0, this.snapshotCount)) tree = tree.append(cm);
    return {
      leader: {
        snapshot: { root: tree.root(), count: this.snapshotCount },
        nullifiers: PMap.from(
          bigintKeys,
          this.nullifiers.map((n) => [n, true] as const),
        ),
        claimable_rewards: this.claimableRewards,
        pending_rewards: 0n,
        vouchers: tree,
      },
      sdp: { declarations: PMap.from(stringKeys, this.declarations.entries()) },
      notes: PMap.from(bigintKeys, this.notes),
      epoch_state: { notes: PMap.from(bigintKeys, this.agedNotes) },
    } as unknown as LedgerState;
  }

  asChain(): IChain {
    return {
      genesis: {},
      config: this.config,
      tip: () => ({
        id: this.ids[this.ids.length - 1]!,
        height: this.ids.length - 1,
        slot: 0n,
        state: this.state(),
      }),
      lib: () => ({ id: this.ids[this.libHeight]!, height: this.libHeight, slot: 0n }),
      stateOf: (id: Uint8Array) =>
        bytesToHex(id) === bytesToHex(this.ids[this.ids.length - 1]!) ? this.state() : undefined,
      block: (id: Uint8Array) => this.blocks.get(bytesToHex(id)),
    } as unknown as IChain;
  }
}
