/**
 * The chain as the transaction-building operations read it, for their tests: the chain double whose
 * canonical blocks carry only their voucher commitment (`stubBlock`), whose tip ledger state is built,
 * on every read, from what a test sets here (voucher snapshot and nullifiers, claimable rewards, SDP
 * declarations, notes), with a LIB height and reorgs. Only the tip has a ledger state.
 */
import type { ChainTip } from '../../src/chain/index.ts';
import { bytesToHex } from '../../src/codec/hex.ts';
import type { Fr } from '../../src/crypto/field.ts';
import type { Declaration, LedgerState, NoteRecord } from '../../src/ledger/state.ts';
import { VoucherTree } from '../../src/ledger/trees/voucher-tree.ts';
import { bigintKeys, PMap, stringKeys } from '../../src/util/pmap.ts';
import { FakeChain, stubBlock } from './chain.ts';
import { stateWith, TestChain } from './ledger.ts';

const idOf = (height: number, salt: number) => {
  const id = new Uint8Array(32);
  new DataView(id.buffer).setUint32(0, height);
  new DataView(id.buffer).setUint32(4, salt);
  return id;
};

/** The chain double whose tip state is the fixture's, read live. */
class TipStateChain extends FakeChain {
  constructor(
    private readonly fixture: VoucherChain,
    securityParam: number,
  ) {
    const ledger = new TestChain();
    const config = ledger.ctx.config;
    super({
      ledger,
      genesisId: idOf(0, 0),
      config: { ...config, consensus: { ...config.consensus, security_param: securityParam } },
    });
  }

  override tip(): ChainTip {
    return { ...super.tip(), state: this.fixture.state() };
  }

  override stateOf(id: Uint8Array): LedgerState | undefined {
    return bytesToHex(id) === bytesToHex(super.tip().id) ? this.fixture.state() : undefined;
  }
}

export class VoucherChain {
  /** Canonical block ids by height; 0 is the genesis. */
  readonly ids: Uint8Array[] = [idOf(0, 0)];
  cms: Fr[] = [];
  snapshotCount = 0;
  nullifiers: Fr[] = [];
  claimableRewards = 100n;
  declarations = new Map<string, Declaration>();
  /** Notes at the tip and in the aged snapshot. */
  notes: [Fr, NoteRecord][] = [];
  agedNotes: [Fr, NoteRecord][] = [];
  /** The chain double over this fixture. */
  readonly chain: FakeChain;
  #salt = 0;

  constructor(readonly securityParam = 4) {
    this.chain = new TipStateChain(this, securityParam);
  }

  /** The LIB's height; setting it finalizes the canonical block at that height. */
  get libHeight(): number {
    return this.chain.lib().height;
  }

  set libHeight(height: number) {
    this.chain.finalize(this.ids[height]!);
  }

  /** Appends canonical blocks carrying these voucher commitments. */
  extend(...cms: Fr[]): void {
    for (const cm of cms) {
      const parent = this.ids[this.ids.length - 1]!;
      const id = idOf(this.ids.length, this.#salt);
      this.chain.put(id, { block: stubBlock(parent, 0n, cm) });
      this.ids.push(id);
      this.cms.push(cm);
    }
  }

  /** Replaces the blocks above `height` with new ones. */
  reorg(height: number, ...cms: Fr[]): void {
    this.#salt++;
    this.ids.length = height + 1;
    this.cms.length = height;
    this.chain.switchTo(this.ids[height]!, { deleteAbandoned: true });
    this.extend(...cms);
  }

  /** The tip's ledger state: the devnet genesis state with what these operations read set here. */
  state(): LedgerState {
    let tree = VoucherTree.empty();
    for (const cm of this.cms.slice(0, this.snapshotCount)) tree = tree.append(cm);
    const base = stateWith({});
    return stateWith({
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
      sdp: { ...base.sdp, declarations: PMap.from(stringKeys, this.declarations.entries()) },
      notes: PMap.from(bigintKeys, this.notes),
      epoch_state: { ...base.epoch_state, notes: PMap.from(bigintKeys, this.agedNotes) },
    });
  }
}
