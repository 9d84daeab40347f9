/**
 * The wallet double: `FakeWallet implements IWallet` (src/wallet/interface.ts), for tests of the services
 * that build transactions. It "funds" a builder by appending a funding Transfer (one input note, no
 * output) with a fixed fee and a dummy ZkSig, signs every op with a placeholder proof of the right
 * variant (or the proof the builder carries for it), submits to its mempool, records each request and
 * release, and answers balances from `balances` (or throws `balanceFailWith`).
 */
import type { Fr } from '../../src/crypto/field.ts';
import { type Op, Opcode } from '../../src/mantle/ops.ts';
import { type OpProof, PROOF_TYPE_OF, type ZkSignature } from '../../src/mantle/proofs.ts';
import type { SignedMantleTx } from '../../src/mantle/tx.ts';
import type { IMempool } from '../../src/mempool/interface.ts';
import type {
  FundedTx,
  FundRequest,
  IWallet,
  TransferRequest,
  WalletBalance,
} from '../../src/wallet/interface.ts';
import { FakeMempool } from './mempool.ts';

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
  /** The balance `balance` answers for a key (none: the wallet does not know the key). */
  readonly balances = new Map<Fr, bigint>();
  /** When set, `balance` throws it. */
  balanceFailWith: Error | undefined;

  constructor(
    private readonly mempool: IMempool = new FakeMempool(),
    /** The tip `balance` answers at. */
    readonly tip: () => Uint8Array = () => new Uint8Array(32),
  ) {}

  balance(pk: Fr): WalletBalance | undefined {
    if (this.balanceFailWith) throw this.balanceFailWith;
    const b = this.balances.get(pk);
    return b === undefined ? undefined : { tip: this.tip(), balance: b, notes: [], address: pk };
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
    return this.submitSigned(await this.sign(await this.fund(req)));
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
