/**
 * Fakes of the wallet and the mempool for tests of the services that build transactions: the wallet
 * "funds" a builder by appending a funding Transfer (one input note, no output) with a fixed fee and a
 * dummy ZkSig, signs every op with a placeholder proof of the right variant (or the proof the builder
 * carries for it), and records each request and release; the mempool records what it is given (or fails
 * on demand).
 */
import { EventEmitter } from 'node:events';
import type { Fr } from '../../src/crypto/field.ts';
import { type Op, Opcode } from '../../src/mantle/ops.ts';
import { type OpProof, PROOF_TYPE_OF, type ZkSignature } from '../../src/mantle/proofs.ts';
import { type SignedMantleTx, txHash } from '../../src/mantle/tx.ts';
import type {
  AddResult,
  IMempool,
  MempoolEvents,
  MempoolMetrics,
  TxOrigin,
} from '../../src/mempool/interface.ts';
import type {
  FundedTx,
  FundRequest,
  IWallet,
  TransferRequest,
  WalletBalance,
} from '../../src/wallet/interface.ts';

const DUMMY_SIG: ZkSignature = {
  pi_a: new Uint8Array(32),
  pi_b: new Uint8Array(64),
  pi_c: new Uint8Array(32),
};

function placeholderProof(opcode: Opcode): OpProof {
  switch (PROOF_TYPE_OF[opcode]) {
    case 'ZkSig':
      return { type: 'ZkSig', signature: DUMMY_SIG };
    case 'ZkAndEd25519Sigs':
      return { type: 'ZkAndEd25519Sigs', zk_sig: DUMMY_SIG, ed25519_sig: new Uint8Array(64) };
    case 'Ed25519Sig':
      return { type: 'Ed25519Sig', signature: new Uint8Array(64) };
    case 'PoC':
      return { type: 'PoC', proof: new Uint8Array(128) };
    case 'ChannelMultiSigProof':
      return { type: 'ChannelMultiSigProof', signatures: [] };
    default:
      return { type: 'None' };
  }
}

export class FakeWallet implements IWallet {
  readonly funded: FundRequest[] = [];
  readonly signed: FundedTx[] = [];
  readonly released: FundedTx[] = [];
  /** The fee every funded transaction pays. */
  fee = 10n;
  /** When set, `fund` throws it. */
  failWith: Error | undefined;

  constructor(private readonly mempool: IMempool) {}

  balance(_pk: Fr): WalletBalance | undefined {
    return undefined;
  }

  async fund(req: FundRequest): Promise<FundedTx> {
    if (this.failWith) throw this.failWith;
    this.funded.push(req);
    if (req.maxTxFee !== undefined && this.fee > req.maxTxFee)
      throw new Error(`tx_fee(${this.fee}) exceeds max_tx_fee(${req.maxTxFee})`);
    const funding: Op = {
      opcode: Opcode.Transfer,
      payload: { inputs: [BigInt(this.funded.length)], outputs: [] },
    };
    const tx = { ops: [...req.builder.ops, funding] };
    return {
      tip: req.tip ?? new Uint8Array(32),
      builder: req.builder,
      tx,
      transferProof: DUMMY_SIG,
      fee: this.fee,
    };
  }

  async sign(funded: FundedTx): Promise<SignedMantleTx> {
    this.signed.push(funded);
    return {
      mantle_tx: funded.tx,
      ops_proofs: funded.tx.ops.map(
        (op, i) => funded.builder.opProofs?.get(i) ?? placeholderProof(op.opcode),
      ),
    };
  }

  async submitSigned(signed: SignedMantleTx): Promise<Uint8Array> {
    return (await this.mempool.add(signed, 'wallet')).hash;
  }

  release(funded: FundedTx): void {
    this.released.push(funded);
  }

  async submit(req: FundRequest): Promise<Uint8Array> {
    const signed = await this.sign(await this.fund(req));
    return (await this.mempool.add(signed, 'wallet')).hash;
  }

  transfer(_req: TransferRequest): Promise<Uint8Array> {
    throw new Error('not used by these tests');
  }

  signEd25519(): Uint8Array {
    throw new Error('not used by these tests');
  }

  signZk(): Promise<ZkSignature> {
    throw new Error('not used by these tests');
  }
}

export class FakeMempool extends EventEmitter<MempoolEvents> implements IMempool {
  readonly added: { tx: SignedMantleTx; origin: TxOrigin }[] = [];
  /** When set, `add` throws it. */
  failWith: Error | undefined;

  async add(tx: SignedMantleTx, origin: TxOrigin): Promise<AddResult> {
    if (this.failWith) throw this.failWith;
    this.added.push({ tx, origin });
    return { hash: txHash(tx.mantle_tx), outcome: 'added' };
  }
  has(): boolean {
    return false;
  }
  get(): SignedMantleTx | undefined {
    return undefined;
  }
  view(): Uint8Array[] {
    return [];
  }
  byPrefix(): SignedMantleTx[] {
    return [];
  }
  candidates(): Iterable<SignedMantleTx> {
    return this.added.map((a) => a.tx);
  }
  evict(): void {}
  metrics(): MempoolMetrics {
    return { pending_items: this.added.length, last_item_timestamp: 0 };
  }
}
