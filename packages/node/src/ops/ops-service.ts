/**
 * The OpsService: the node's transaction-building operations on top of the wallet —
 * leader reward claims, SDP messages (with the node's current declaration, kept in the store), Blend
 * join and channel deposits. Each builds its ops, has the wallet fund and sign them and adds the
 * transaction to the mempool; nothing is reserved or stored when a request is refused.
 */

import type { Logger } from 'pino';
import type { IChain } from '../chain/index.ts';
import { bytesToHex, hexToBytes } from '../codec/hex.ts';
import { ed25519PublicKey } from '../crypto/ed25519.ts';
import { type Fr, frFromBytes, frToBytes } from '../crypto/field.ts';
import { zkPublicKey } from '../crypto/zk-keys.ts';
import { voucherRewardAmount } from '../ledger/leader-claims.ts';
import type { ProofSystem } from '../ledger/proof-system.ts';
import type { Declaration, LedgerState } from '../ledger/state.ts';
import { voucherPath } from '../ledger/trees/voucher-tree.ts';
import type { Locator } from '../mantle/locator.ts';
import { type ActivityMetadata, type Op, Opcode, type SDPDeclareOp } from '../mantle/ops.ts';
import { declarationId } from '../mantle/sdp.ts';
import { type SignedMantleTx, txHash, txHashToFr } from '../mantle/tx.ts';
import type { Meter } from '../util/meter.ts';
import { Semaphore } from '../util/semaphore.ts';
import type { FundedTx, IWallet } from '../wallet/index.ts';
import type { BlendKeysSection, KmsKeys, SdpSection } from './config.ts';
import { OpsError } from './errors.ts';
import type {
  AgedNote,
  AgedNotes,
  ChannelDepositRequest,
  ClaimableVouchers,
  IOps,
  SdpSubmission,
  WalletVouchers,
} from './interface.ts';
import {
  activeOp,
  blendDeclaration,
  builderOf,
  leaderClaimOp,
  withdrawOp,
  withProof,
} from './tx-builders.ts';
import { VoucherBook, type VoucherStore } from './vouchers.ts';

export interface OpsConfig {
  /** The voucher master secret key (leader/vouchers.ts), if the KMS holds it. */
  readonly voucherMaster: Fr | undefined;
  /** Public keys of the wallet's notes the leader plays the lottery with. */
  readonly leaderPks: readonly Fr[];
  /** `cryptarchia.leader.wallet`: the key claims are paid to and funded from, and their fee cap. */
  readonly leaderWallet: { readonly max_tx_fee: bigint; readonly funding_pk: string | null };
  readonly sdp: SdpSection;
  readonly blend: BlendKeysSection;
  /** The key store's keys (`kms.backend.keys`): the Blend keys are read from them. */
  readonly kmsKeys: KmsKeys;
}

/** A failure before the transaction was handed to the mempool (funding, the fee cap, proofs, signing). */
class NotSubmitted extends Error {
  constructor(readonly cause: unknown) {
    super((cause as Error)?.message ?? String(cause));
  }
}

/** Where the node's current declaration is kept. */
export interface DeclarationStore {
  declarationId(): Uint8Array | undefined;
  setDeclarationId(id: Uint8Array | null): Promise<void>;
}

export interface OpsDeps {
  readonly chain: IChain;
  /** The wallet the operations fund, sign and submit through; without it only the reads are served. */
  readonly wallet?: IWallet | undefined;
  readonly proofs: Pick<ProofSystem, 'provePoc'>;
  readonly vouchers: VoucherStore;
  readonly declarations: DeclarationStore;
  readonly logger: Logger;
  /** Counts SDP declarations and activity messages, and aged-note reads (absent: not counted). */
  readonly meter?: Meter;
}

const hex = (b: Uint8Array) => bytesToHex(b);
const frHex = (x: Fr) => bytesToHex(frToBytes(x));

/** Runs `fn` holding a permit of `sem` (one at a time for a semaphore of 1). */
async function serially<T>(sem: Semaphore, fn: () => Promise<T>): Promise<T> {
  const release = await sem.acquire();
  try {
    return await fn();
  } finally {
    release();
  }
}

function feeTooHigh(fee: bigint, max: bigint): OpsError {
  return new OpsError(
    'OPS_FEE_TOO_HIGH',
    `Transaction fee exceeded the configured max fee. tx_fee=${fee} > max_fee=${max}`,
    { fee, max },
  );
}

export class OpsService implements IOps {
  readonly #book: VoucherBook;
  /** One claim at a time, so that two calls never pick the same voucher. */
  readonly #claims = new Semaphore(1);
  /** SDP messages one at a time (each reads the declaration's nonce at the tip). */
  readonly #sdp = new Semaphore(1);
  readonly #leaderPks: Set<Fr>;
  #declaration: Uint8Array | undefined;

  private constructor(
    private readonly config: OpsConfig,
    private readonly deps: OpsDeps,
  ) {
    this.#book = new VoucherBook(config.voucherMaster, deps.vouchers, deps.chain);
    this.#leaderPks = new Set(config.leaderPks);
    const configured = config.sdp.declaration_id;
    // F: the stored declaration id, else the configured one (`SdpService::init`).
    this.#declaration =
      deps.declarations.declarationId() ?? (configured ? hexToBytes(configured) : undefined);
  }

  static init(config: OpsConfig, deps: OpsDeps): OpsService {
    const ops = new OpsService(config, deps);
    const current = ops.#declaration;
    if (current !== undefined && !ops.#declarationAtTip(current))
      deps.logger.warn(
        { declaration_id: hex(current) },
        'the current SDP declaration is not in the ledger at the tip',
      );
    return ops;
  }

  close(): void {}

  /** The wallet; a node without one builds no transactions. */
  #wallet(): IWallet {
    if (this.deps.wallet === undefined)
      throw new OpsError('OPS_NO_WALLET', 'this node runs no wallet: it cannot build transactions');
    return this.deps.wallet;
  }

  /**
   * Funds `op` (exact mandatory fee, change back to the funding key), refuses a fee above `maxFee`, and
   * signs and submits it. `prove` adds proofs over the funded transaction's hash (a LeaderClaim's PoC)
   * before the wallet signs. What funding reserved is released where the reference releases it:
   * - signing fails: always (the wallet does it, F `WalletMsg::SignTx`);
   * - the fee is over the cap, or `prove` fails: only when `releaseBeforeSigning` (a leader claim: F's
   *   wallet builds the claim and releases on any error, `build_reserved_leader_claim_tx`); an SDP
   *   message keeps its notes reserved until they expire (F `generic_services/sdp/wallet.rs` returns
   *   `TxFeeExceedsMaxFee` after `fund_tx` reserved them);
   * - the mempool refuses the transaction: never (F posts it after the wallet answered).
   */
  async #fundAndSubmit(
    op: Op,
    fundingPk: Fr,
    maxFee: bigint,
    tip: Uint8Array | undefined,
    releaseBeforeSigning: boolean,
    prove?: (funded: FundedTx) => Promise<FundedTx>,
  ): Promise<{ hash: Uint8Array; fee: bigint }> {
    const wallet = this.#wallet();
    const funded = await wallet.fund({
      ...(tip !== undefined ? { tip } : {}),
      builder: builderOf(op),
      changePk: fundingPk,
      fundingPks: [fundingPk],
      priorityFeePercent: 0n,
    });
    let ready: FundedTx;
    try {
      if (funded.fee > maxFee) throw feeTooHigh(funded.fee, maxFee);
      ready = prove ? await prove(funded) : funded;
    } catch (e) {
      if (releaseBeforeSigning) wallet.release(funded);
      throw new NotSubmitted(e);
    }
    let signed: SignedMantleTx;
    try {
      // The wallet releases the funded notes itself when signing fails.
      signed = await wallet.sign(ready);
    } catch (e) {
      throw new NotSubmitted(e);
    }
    return { hash: await wallet.submitSigned(signed), fee: funded.fee };
  }

  #stateAt(tip: Uint8Array | undefined): { id: Uint8Array; state: LedgerState } {
    if (tip === undefined) {
      const t = this.deps.chain.tip();
      return { id: t.id, state: t.state };
    }
    const state = this.deps.chain.stateOf(tip);
    // inferred: F's wallet fails for a block it has no state of; the text is ours (docs/design/fidelity.md)
    if (state === undefined)
      throw new OpsError('OPS_NO_LEDGER_STATE', `Ledger state not found for block ${hex(tip)}`);
    return { id: tip, state };
  }

  agedNotes(tip?: Uint8Array): AgedNotes {
    this.deps.meter?.count('wallet_requests_total', 1, { kind: 'get_leader_aged_notes' });
    const at = this.#stateAt(tip);
    // inferred: "cannot win at tip" = no voucher master key (a won slot is passed over, leader-service.ts);
    // the notes are those the leader plays (docs/design/fidelity.md)
    if (this.config.voucherMaster === undefined) return { tip: at.id, notes: [] };
    const notes: AgedNote[] = [];
    // F `get_leader_aged_notes`: the wallet's unspent notes at the tip that are in the epoch's aged
    // snapshot; as the leader plays them: keys it holds, not in a channel, not locked (leader-service.ts).
    for (const [id, r] of at.state.epoch_state.notes.entries()) {
      if (!this.#leaderPks.has(r.note.pk) || r.channel !== null || r.locked_by !== null) continue;
      if (!at.state.notes.has(id)) continue;
      notes.push({ note_id: id, value: r.note.value, public_key: r.note.pk });
    }
    notes.sort((a, b) => (a.note_id < b.note_id ? -1 : a.note_id > b.note_id ? 1 : 0));
    return { tip: at.id, notes };
  }

  claimableVouchers(tip?: Uint8Array): ClaimableVouchers {
    const at = this.#stateAt(tip);
    const vouchers = this.#book
      .view(at.state)
      .filter((v) => v.status === 'available')
      .map((v) => ({ commitment: v.cm, nullifier: v.nullifier }));
    // inferred: reward_amount is the ledger's payout of one claim at that block (F has no such field)
    // (docs/design/fidelity.md)
    return { tip: at.id, vouchers, reward_amount: voucherRewardAmount(at.state) };
  }

  walletVouchers(): WalletVouchers {
    const at = this.#stateAt(undefined);
    return { tip: at.id, vouchers: this.#book.view(at.state), reward_amount: voucherRewardAmount(at.state) };
  }

  claim(): Promise<Uint8Array> {
    return serially(this.#claims, () => this.#claim());
  }

  async #claim(): Promise<Uint8Array> {
    this.#wallet();
    const tip = this.deps.chain.tip();
    const voucher = this.#book.view(tip.state).find((v) => v.status === 'available');
    if (voucher === undefined || voucher.position === undefined)
      throw new OpsError('OPS_NO_CLAIMABLE_VOUCHER', 'Wallet API error: No claimable voucher found');
    const position = voucher.position;
    const { funding_pk, max_tx_fee } = this.config.leaderWallet;
    if (funding_pk === null)
      throw new OpsError('OPS_NOT_CONFIGURED', 'cryptarchia.leader.wallet.funding_pk is not configured');
    const pk = frFromBytes(hexToBytes(funding_pk));
    const root = tip.state.leader.snapshot.root;
    const leaves = this.#book.snapshotLeaves(tip.state);
    // The proof of claim binds the funded transaction's hash.
    const prove = async (funded: FundedTx): Promise<FundedTx> => {
      if (position >= leaves.length)
        throw new OpsError('OPS_VOUCHER_PATH', `Merkle path not found for voucher_cm: ${frHex(voucher.cm)}`);
      const proof = await this.deps.proofs.provePoc(
        {
          voucher_nullifier: voucher.nullifier,
          voucher_root: root,
          mantle_tx_hash: txHashToFr(txHash(funded.tx)),
        },
        {
          voucher_secret: voucher.secret,
          voucher_path: voucherPath(leaves, position),
          voucher_index: position,
        },
      );
      return withProof(funded, Opcode.LeaderClaim, { type: 'PoC', proof });
    };
    // F reserves the voucher before building the claim and releases it when building (funding, the fee
    // cap, the proof, signing) fails; a claim the mempool refuses keeps it (F `build_and_submit_claim_tx`).
    await this.#book.reserve(voucher.nullifier);
    try {
      const { hash, fee } = await this.#fundAndSubmit(
        leaderClaimOp(root, voucher.nullifier, pk),
        pk,
        max_tx_fee,
        tip.id,
        true,
        prove,
      );
      this.deps.logger.info(
        { tx_hash: hex(hash), voucher: frHex(voucher.cm), fee },
        'leader reward claim added to the mempool',
      );
      return hash;
    } catch (e) {
      // Only a claim that was built and signed reached the mempool: its refusal keeps the voucher.
      if (e instanceof NotSubmitted) {
        await this.#book.release(voucher.nullifier);
        throw e.cause;
      }
      throw e;
    }
  }

  #declarationAtTip(id: Uint8Array): Declaration | undefined {
    return this.deps.chain.tip().state.sdp.declarations.get(hex(id));
  }

  #requireDeclaration(id: Uint8Array): Declaration {
    const d = this.#declarationAtTip(id);
    // inferred: F prints the id with Debug formatting; we print hex (docs/design/fidelity.md)
    if (d === undefined)
      throw new OpsError('OPS_DECLARATION_NOT_FOUND', `Declaration ${hex(id)} not found in ledger`, {
        declaration_id: hex(id),
      });
    return d;
  }

  /**
   * Funds an SDP op about declaration `id` from `sdp.wallet.funding_pk` (change back to it), signs and
   * submits it.
   */
  async #submitSdp(what: string, id: Uint8Array, op: Op): Promise<SdpSubmission> {
    this.#wallet();
    const { funding_pk, max_tx_fee } = this.config.sdp.wallet;
    if (funding_pk === null)
      throw new OpsError('OPS_NOT_CONFIGURED', 'sdp.wallet.funding_pk is not configured');
    const { hash } = await this.#fundAndSubmit(
      op,
      frFromBytes(hexToBytes(funding_pk)),
      max_tx_fee,
      undefined,
      false,
    ).catch((e: unknown) => {
      throw e instanceof NotSubmitted ? e.cause : e;
    });
    this.deps.logger.info(
      { declaration_id: hex(id), tx_hash: hex(hash) },
      `SDP ${what} added to the mempool`,
    );
    return { declarationId: id, txHash: hash };
  }

  async #setCurrent(id: Uint8Array | null): Promise<void> {
    await this.deps.declarations.setDeclarationId(id);
    this.#declaration = id ?? undefined;
  }

  // inferred: the SDP messages answer {declaration_id, tx_id} once submitted and fail with a 500 (spec);
  // F answers activity and withdrawal at once with null and only logs their failures (docs/design/fidelity.md)
  declare(op: SDPDeclareOp): Promise<SdpSubmission> {
    this.deps.meter?.count('sdp_declarations_total');
    return serially(this.#sdp, async () => {
      const r = await this.#submitSdp('declaration', declarationId(op), {
        opcode: Opcode.SDPDeclare,
        payload: op,
      });
      // F: the posted declaration becomes the node's current one.
      await this.#setCurrent(r.declarationId);
      return r;
    });
  }

  activity(metadata: ActivityMetadata): Promise<SdpSubmission> {
    this.deps.meter?.count('sdp_activity_posts_total');
    return serially(this.#sdp, () => {
      const id = this.#declaration;
      if (id === undefined)
        throw new OpsError(
          'OPS_NO_DECLARATION',
          'No declaration_id set. Cannot post activity without declaration.',
        );
      return this.#submitSdp('activity', id, activeOp(id, this.#requireDeclaration(id), metadata));
    });
  }

  withdraw(id: Uint8Array): Promise<SdpSubmission> {
    return serially(this.#sdp, async () => {
      const r = await this.#submitSdp('withdrawal', id, withdrawOp(id, this.#requireDeclaration(id)));
      // F: after a withdrawal the node has no current declaration (whichever was withdrawn).
      await this.#setCurrent(null);
      return r;
    });
  }

  setDeclarationId(id: Uint8Array | null): Promise<void> {
    return serially(this.#sdp, async () => {
      if (id !== null) this.#requireDeclaration(id);
      await this.#setCurrent(id);
    });
  }

  currentDeclarationId(): Uint8Array | undefined {
    return this.#declaration;
  }

  /** The public key of a KMS key of the given kind named by a `blend` key id. */
  #blendKey(kind: 'Zk' | 'Ed25519', id: string | null, path: string): string {
    if (id === null) throw new OpsError('OPS_NOT_CONFIGURED', `${path} is not configured`);
    const key = this.config.kmsKeys[id];
    if (key === undefined || key.kind !== kind)
      throw new OpsError('OPS_NOT_CONFIGURED', `${path}: the KMS holds no ${kind} key with that id`);
    return key.secret;
  }

  async joinBlend(locator: Locator, serviceNoteId: Fr): Promise<SdpSubmission> {
    const b = this.config.blend;
    const signing = this.#blendKey(
      'Ed25519',
      b.non_ephemeral_signing_key_id,
      'blend.non_ephemeral_signing_key_id',
    );
    const zk = this.#blendKey('Zk', b.core_zk_secret_key_kms_id, 'blend.core.zk.secret_key_kms_id');
    const op = blendDeclaration(
      locator,
      serviceNoteId,
      ed25519PublicKey(hexToBytes(signing)),
      zkPublicKey(frFromBytes(hexToBytes(zk))),
    );
    const r = await this.declare(op);
    this.deps.logger.info(
      { declaration_id: hex(r.declarationId) },
      'declared this node as a Blend core node; it serves as one from the first epoch whose membership holds the declaration',
    );
    return r;
  }

  async channelDeposit(req: ChannelDepositRequest): Promise<Uint8Array> {
    // F `channel_deposit`: funded against the current tip with the exact mandatory fee, the fee checked
    // against max_tx_fee, signed and added to the mempool.
    return this.#wallet().submit({
      builder: builderOf({ opcode: Opcode.ChannelDeposit, payload: req.deposit }),
      changePk: req.changePk,
      fundingPks: req.fundingPks,
      priorityFeePercent: 0n,
      maxTxFee: req.maxTxFee,
    });
  }
}
