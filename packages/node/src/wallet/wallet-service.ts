/**
 * The wallet service (F: `services/wallet`): the notes of the known keys at every block above the LIB,
 * funding (F `fund_tx`) with reservations, signing with the key store (F `SignTx`) and submission to
 * the mempool.
 *
 * Note tracking. One `OwnedNotes` per block of the tree at or above the LIB, derived from the chain's
 * ledger states (owned-notes.ts) when a block is processed, or on demand for a block named by a
 * request. When the LIB advances, states below it and of pruned forks are dropped and the LIB's notes
 * are persisted (wallet-store.ts), so a restart starts from them instead of scanning the ledger.
 *
 * Reservations (F `PendingNotes`, `services/wallet/src/states.rs`): the notes a funded transaction
 * spends are reserved at once (the funding step runs synchronously, so two requests never pick the same
 * note). As F, a reservation is released only when signing the transaction fails (F `SignTx`, and the
 * leader claim it builds), else after `pending_note_expiry_blocks` blocks of LIB progress: not when
 * the transaction is included (its notes are spent then), not when the mempool refuses it, not when
 * `/wallet/fund` fails to sign its transfer proof (F funds with `FundTx`, then signs with
 * `SignTxWithZk`, which releases nothing). They are not persisted (as F).
 *
 * Known keys while running (`track`, beyond F, whose keys are fixed at start): a key that stops being
 * known leaves every state with its notes; a new key's notes are picked up from the next block
 * processed, its earlier notes are not looked for. The persisted notes are then tagged as incomplete,
 * so the next start reads them all from the LIB's ledger state.
 */

import { ConfigError } from '@logos-ts/shared/config-fields';
import type { Logger } from 'pino';
import { type BlockRef, headerIdText, type IChain } from '../chain/index.ts';
import { bytesToHex, hexToBytes } from '../codec/hex.ts';
import { blake2b256 } from '../crypto/blake2b.ts';
import { type Fr, frFromBytes, frToBytes } from '../crypto/field.ts';
import { type IKms, MAX_ZK_SIGNING_KEYS } from '../kms/index.ts';
import { gasContextOf } from '../ledger/gas.ts';
import type { LedgerState, NoteRecord } from '../ledger/state.ts';
import { type MantleTx, type SignedMantleTx, txHash, txHashToFr } from '../mantle/tx.ts';
import type { IMempool } from '../mempool/index.ts';
import type { WalletStore } from '../storage/wallet-store.ts';
import type { Meter } from '../util/meter.ts';
import { addLedgerOutputs, buildTx, consumedOrLockedNotes, newBuilder, txFee } from './builder.ts';
import type { WalletSection } from './config.ts';
import { WalletError } from './errors.ts';
import { fundBuilder } from './funding.ts';
import type {
  FundedTx,
  FundRequest,
  IWallet,
  TransferRequest,
  TxBuilder,
  WalletBalance,
} from './interface.ts';
import { type NotesOfKey, OwnedNotes } from './owned-notes.ts';
import { signTx } from './signing.ts';

export interface WalletDeps {
  readonly chain: IChain;
  readonly mempool: IMempool;
  readonly kms: IKms;
  readonly store: WalletStore;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  /** Counts balance reads and funded transactions (absent: not counted). */
  readonly meter?: Meter;
}

interface BlockNotes {
  readonly notes: OwnedNotes;
  readonly height: number;
}

/** The balance part of a key's notes, computed once per notes map (immutable). */
interface KeyBalance {
  readonly balance: bigint;
  readonly notes: readonly { readonly id: Fr; readonly value: bigint }[];
}

export class Wallet implements IWallet {
  readonly #chain: IChain;
  readonly #mempool: IMempool;
  readonly #kms: IKms;
  readonly #meter: Meter | undefined;
  readonly #store: WalletStore;
  readonly #log: Logger;
  #known: ReadonlySet<Fr>;
  /** Blake2b-256 of the known keys, sorted: persisted notes tracked for other keys are not reused. */
  #keysTag: Uint8Array;
  /** False once a key was added while running: the notes then lack that key's earlier notes. */
  #complete = true;
  readonly #expiry: number;
  /** Hex block id → the wallet's notes after that block. */
  readonly #states = new Map<string, BlockNotes>();
  /** Reserved note id → immutable blocks since the reservation. */
  readonly #reserved = new Map<Fr, number>();
  readonly #balances = new WeakMap<NotesOfKey, KeyBalance>();
  #lib: BlockRef;
  /** The notes last written as the LIB's (to skip rewriting unchanged notes). */
  #persisted: OwnedNotes | undefined;
  #writes: Promise<void> = Promise.resolve();
  readonly #onBlock = (p: { id: Uint8Array }) => void this.#stateAt(p.id);
  readonly #onLib = (lib: BlockRef) => this.#advanceLib(lib);

  private constructor(config: WalletSection, deps: WalletDeps) {
    this.#chain = deps.chain;
    this.#mempool = deps.mempool;
    this.#kms = deps.kms;
    this.#meter = deps.meter;
    this.#store = deps.store;
    this.#log = deps.logger;
    this.#known = Wallet.knownKeysOf(config);
    this.#keysTag = keysTag(this.#known, true);
    this.#expiry = config.pending_note_expiry_blocks;
    this.#lib = deps.chain.lib();
  }

  /**
   * Starts from the persisted LIB notes when they are at the chain's LIB, else from one scan of the
   * LIB's ledger notes (logged), and follows the chain's blocks and LIB from then on.
   */
  static async init(config: WalletSection, deps: WalletDeps): Promise<Wallet> {
    const w = new Wallet(config, deps);
    const lib = w.#lib;
    const persisted = deps.store.libNotesBlock();
    let notes: OwnedNotes | undefined;
    if (
      persisted !== undefined &&
      bytesToHex(persisted.lib) === bytesToHex(lib.id) &&
      bytesToHex(persisted.keysTag) === bytesToHex(w.#keysTag)
    ) {
      try {
        notes = OwnedNotes.of(deps.store.libNotes());
        w.#persisted = notes;
      } catch (e) {
        deps.logger.warn({ err: (e as Error).message }, 'the persisted wallet notes cannot be read');
      }
    }
    if (notes === undefined) {
      const state = deps.chain.stateOf(lib.id);
      if (!state) throw new Error(`the chain holds no ledger state at its LIB ${bytesToHex(lib.id)}`);
      const t0 = performance.now();
      notes = OwnedNotes.scan(state.notes, w.#known);
      deps.logger.info(
        { lib: bytesToHex(lib.id), ledger_notes: state.notes.size, ms: Math.round(performance.now() - t0) },
        'wallet notes read from the LIB ledger state (no persisted wallet state at this LIB for these keys)',
      );
      await deps.store.setLibNotes(lib.id, w.#keysTag, notes.entries());
      w.#persisted = notes;
    }
    w.#states.set(bytesToHex(lib.id), { notes, height: lib.height });
    deps.chain.on('block', w.#onBlock);
    deps.chain.on('lib', w.#onLib);
    // Blocks above the LIB processed before the wallet started are derived on demand.
    w.#stateAt(deps.chain.tip().id);
    return w;
  }

  /** The public keys of `wallet.known_keys`; a value that is not a field element is a `ConfigError`. */
  static knownKeysOf(config: Pick<WalletSection, 'known_keys'>): ReadonlySet<Fr> {
    return new Set(Object.entries(config.known_keys).map(([id, hex]) => frOfHex(hex, id)));
  }

  /**
   * Tracks the keys of `known` from now on (see the file's header): a key no longer in it leaves every
   * state; a new one's notes are picked up from the next block processed. Returns what changed.
   */
  track(known: ReadonlySet<Fr>): { readonly added: Fr[]; readonly removed: Fr[] } {
    const added = [...known].filter((pk) => !this.#known.has(pk));
    const removed = [...this.#known].filter((pk) => !known.has(pk));
    if (added.length === 0 && removed.length === 0) return { added, removed };
    this.#known = new Set(known);
    if (removed.length > 0)
      for (const [hex, s] of this.#states)
        this.#states.set(hex, { notes: s.notes.without(removed), height: s.height });
    if (added.length > 0) this.#complete = false;
    this.#keysTag = keysTag(this.#known, this.#complete);
    return { added, removed };
  }

  async close(): Promise<void> {
    this.#chain.off('block', this.#onBlock);
    this.#chain.off('lib', this.#onLib);
    await this.#writes;
  }

  // ---- note tracking

  /** The wallet's notes after a block, derived (with its ancestors down to a known state) if needed. */
  #stateAt(id: Uint8Array): BlockNotes | undefined {
    const hex = bytesToHex(id);
    const have = this.#states.get(hex);
    if (have) return have;
    const path: { hex: string; state: LedgerState }[] = [];
    let cur = id;
    let curHex = hex;
    while (!this.#states.has(curHex)) {
      const state = this.#chain.stateOf(cur);
      const block = state ? this.#chain.block(cur) : undefined;
      if (!state || !block) return undefined;
      path.push({ hex: curHex, state });
      cur = block.header.parent_block;
      curHex = bytesToHex(cur);
    }
    let parent = this.#states.get(curHex)!;
    let parentLedger = this.#chain.stateOf(cur);
    if (!parentLedger) return undefined;
    for (let i = path.length - 1; i >= 0; i--) {
      const { hex: h, state } = path[i]!;
      parent = {
        notes: parent.notes.next(parentLedger.notes, state.notes, this.#known),
        height: parent.height + 1,
      };
      this.#states.set(h, parent);
      parentLedger = state;
    }
    return parent;
  }

  #advanceLib(lib: BlockRef): void {
    const at = this.#stateAt(lib.id);
    // F defers a LIB it has no state for yet; the next LIB event retries.
    if (!at) return;
    const newlyImmutable = Math.max(0, lib.height - this.#lib.height);
    this.#lib = lib;
    for (const [hex, s] of this.#states) {
      if (s.height < lib.height || !this.#chain.has(Buffer.from(hex, 'hex'))) this.#states.delete(hex);
    }
    if (newlyImmutable > 0) {
      for (const [id, age] of this.#reserved) {
        const next = age + newlyImmutable;
        if (next >= this.#expiry) this.#reserved.delete(id);
        else this.#reserved.set(id, next);
      }
    }
    const changed = at.notes !== this.#persisted;
    this.#persisted = at.notes;
    const entries = changed ? [...at.notes.entries()] : undefined;
    this.#writes = this.#writes
      .then(() => this.#store.setLibNotes(lib.id, this.#keysTag, entries))
      .catch((e: Error) =>
        this.#log.warn({ err: e.message }, 'could not persist the wallet notes at the LIB'),
      );
  }

  #notesAt(tip: Uint8Array): OwnedNotes {
    const s = this.#stateAt(tip);
    if (!s)
      throw new WalletError(
        'WALLET_UNKNOWN_BLOCK',
        // F `WalletError::UnknownBlock` (`wallet/src/error.rs`), the block id by its `Display`.
        `Requested wallet state for unknown block: ${headerIdText(tip)}`,
      );
    return s.notes;
  }

  balance(pk: Fr, tip?: Uint8Array): WalletBalance | undefined {
    this.#meter?.count('wallet_requests_total', 1, { kind: 'get_balance' });
    const at = tip ?? this.#chain.tip().id;
    const notes = this.#notesAt(at).notesOf(pk);
    if (!notes) return undefined;
    let b = this.#balances.get(notes);
    if (!b) {
      let balance = 0n;
      const list: { id: Fr; value: bigint }[] = [];
      notes.forEach((r: NoteRecord, id: Fr) => {
        // F: notes held by a channel are not counted; SDP-locked notes are.
        if (r.channel !== null) return;
        balance += r.note.value;
        list.push({ id, value: r.note.value });
      });
      b = { balance, notes: list };
      this.#balances.set(notes, b);
    }
    return { tip: at, balance: b.balance, notes: b.notes, address: pk };
  }

  /** Whether a note is reserved by a funded transaction (tests, diagnostics). */
  isReserved(id: Fr): boolean {
    return this.#reserved.has(id);
  }

  // ---- funding

  /**
   * Funds and reserves synchronously (no await): two requests never fund with the same note.
   * `maxTxFee` is checked before anything is reserved.
   */
  #fundNow(req: FundRequest): { tip: Uint8Array; builder: TxBuilder; reserved: Fr[] } {
    const tip = req.tip ?? this.#chain.tip().id;
    // F reads the ledger state at the tip first (its error), then the wallet's state there.
    const ledger = this.#chain.stateOf(tip);
    if (!ledger)
      throw new WalletError(
        'WALLET_UNKNOWN_BLOCK',
        // F `WalletServiceError::LedgerStateNotFound` (`services/wallet/src/lib.rs`).
        `Ledger state corresponding to block ${headerIdText(tip)} not found`,
      );
    const notes = this.#notesAt(tip);
    const excluded = new Set<Fr>(consumedOrLockedNotes(req.builder));
    for (const id of this.#reserved.keys()) excluded.add(id);
    const candidates = notes.spendable(req.fundingPks, excluded);
    const funded = fundBuilder(
      req.builder,
      candidates,
      req.changePk,
      gasContextOf(ledger),
      req.priorityFeePercent,
    );
    // inferred: a transfer whose inputs need more keys than one ZK signature takes is refused here,
    // before anything is reserved; F funds it and fails when signing (docs/design/fidelity.md)
    if (funded.pendingTransfer.inputs.length > MAX_ZK_SIGNING_KEYS)
      throw new WalletError(
        'WALLET_TOO_MANY_INPUTS',
        `funding needs ${funded.pendingTransfer.inputs.length} notes, more than the ${MAX_ZK_SIGNING_KEYS} one transfer can spend: merge smaller notes first`,
      );
    if (req.maxTxFee !== undefined) {
      const fee = txFee(funded);
      // inferred: refused before reserving; F reserves first and keeps the notes until expiry (docs/design/fidelity.md)
      if (fee > req.maxTxFee)
        throw new WalletError('WALLET_FEE_ABOVE_MAX', `tx_fee(${fee}) exceeds max_tx_fee(${req.maxTxFee})`, {
          fee,
          cap: req.maxTxFee,
        });
    }
    const reserved = consumedOrLockedNotes(funded);
    for (const id of reserved) this.#reserved.set(id, 0);
    return { tip, builder: funded, reserved };
  }

  #release(ids: readonly Fr[]): void {
    for (const id of ids) this.#reserved.delete(id);
  }

  async fund(req: FundRequest): Promise<FundedTx> {
    this.#meter?.count('wallet_requests_total', 1, { kind: 'fund_and_sign_tx' });
    // F: the notes stay reserved when the transfer proof cannot be signed (`fund` in
    // `nodes/node/binary/src/api/handlers.rs` signs it after `FundTx` reserved them).
    const { tip, builder } = this.#fundNow(req);
    const tx = buildTx(builder);
    const pks = builder.ledgerInputs.map((u) => u.note.pk);
    const transferProof = pks.length === 0 ? null : await this.#kms.signZk(txHashFr(tx), pks);
    return { tip, builder, tx, transferProof, fee: txFee(builder) };
  }

  async sign(funded: FundedTx): Promise<SignedMantleTx> {
    const ledger = this.#chain.stateOf(funded.tip) ?? this.#chain.tip().state;
    try {
      return await signTx(funded.builder, ledger, this.#kms, funded.transferProof);
    } catch (e) {
      this.#release(consumedOrLockedNotes(funded.builder));
      throw e;
    }
  }

  async submit(req: FundRequest): Promise<Uint8Array> {
    const { tip, builder, reserved } = this.#fundNow(req);
    const ledger = this.#chain.stateOf(tip) ?? this.#chain.tip().state;
    let signed: SignedMantleTx;
    try {
      signed = await signTx(builder, ledger, this.#kms, null);
    } catch (e) {
      this.#release(reserved);
      throw e;
    }
    // A refusal keeps the notes reserved, as F's `transfer_funds` handler does.
    return this.submitSigned(signed);
  }

  /** A transaction already pending is a success (the same transaction was submitted before). */
  async submitSigned(signed: SignedMantleTx): Promise<Uint8Array> {
    const { hash } = await this.#mempool.add(signed, 'wallet');
    return hash;
  }

  release(funded: FundedTx): void {
    this.#release(consumedOrLockedNotes(funded.builder));
  }

  transfer(req: TransferRequest): Promise<Uint8Array> {
    const builder = addLedgerOutputs(newBuilder(), [{ value: req.amount, pk: req.recipientPk }]);
    return this.submit({
      ...(req.tip ? { tip: req.tip } : {}),
      builder,
      changePk: req.changePk,
      fundingPks: req.fundingPks,
      priorityFeePercent: 0n,
    });
  }

  signEd25519(msg: Uint8Array, pk: Uint8Array): Uint8Array {
    return this.#kms.signEd25519(msg, pk);
  }

  signZk(msg: Fr, pks: readonly Fr[]) {
    return this.#kms.signZk(msg, pks);
  }

  toJSON(): string {
    return '[Wallet]';
  }
}

/**
 * The tag of the persisted notes: Blake2b-256 of the known keys, sorted; notes that lack a key's
 * earlier notes get a tag no set of keys has.
 */
function keysTag(known: ReadonlySet<Fr>, complete: boolean): Uint8Array {
  const keys = [...known].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map(frToBytes);
  return complete ? blake2b256(...keys) : blake2b256(INCOMPLETE, ...keys);
}

/** Not 32 bytes long, so no list of keys hashes to what it prefixes. */
const INCOMPLETE = new TextEncoder().encode('incomplete');

/** A known key's public key from its configured hex; a bad value is a configuration error. */
function frOfHex(hex: string, id: string): Fr {
  try {
    return frFromBytes(hexToBytes(hex));
  } catch {
    throw new ConfigError(`wallet.known_keys.${id}: not a canonical field element`);
  }
}

const txHashFr = (tx: MantleTx): Fr => txHashToFr(txHash(tx));
