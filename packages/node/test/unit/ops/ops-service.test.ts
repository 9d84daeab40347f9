/**
 * The transaction-building operations against a fake wallet, mempool and chain: the ops each one
 * builds (F's values: snapshot root, nullifier and funding key of a claim; nonce + 1 and the locked note
 * of SDP messages; the Blend keys of a join), how they are funded, the voucher states, the claim
 * reservation (durable, released on failure, expiring with LIB progress), and the node's current
 * declaration kept across a restart. Refused requests add and store nothing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import { DEFAULT_BLEND } from '../../../src/blend/index.ts';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { ed25519PublicKey } from '../../../src/crypto/ed25519.ts';
import { type Fr, frToBytes } from '../../../src/crypto/field.ts';
import { zkPublicKey } from '../../../src/crypto/zk-keys.ts';
import { voucherCommitment, voucherNullifier, voucherSecret } from '../../../src/leader/index.ts';
import type { PocPublicInputs, PocWitness } from '../../../src/ledger/proof-system.ts';
import type { Declaration } from '../../../src/ledger/state.ts';
import { voucherPath } from '../../../src/ledger/trees/voucher-tree.ts';
import { locatorFromString } from '../../../src/mantle/locator.ts';
import { type ActivityMetadata, Opcode, type SDPDeclareOp } from '../../../src/mantle/ops.ts';
import { declarationId } from '../../../src/mantle/sdp.ts';
import { txHash, txHashToFr } from '../../../src/mantle/tx.ts';
import { DEFAULT_SDP, type OpsConfig, type OpsError, OpsService } from '../../../src/ops/index.ts';
import { MemoryKv } from '../../../src/storage/kv.ts';
import { SdpStore } from '../../../src/storage/sdp-store.ts';
import { WalletStore } from '../../../src/storage/wallet-store.ts';
import { FakeMempool } from '../../mocks/mempool.ts';
import { VoucherChain } from '../../mocks/voucher-chain.ts';
import { FakeWallet } from '../../mocks/wallet.ts';

const MASTER: Fr = 1234n;
const FUNDING: Fr = zkPublicKey(77n);
const SDP_FUNDING: Fr = zkPublicKey(78n);
const frHex = (x: Fr) => bytesToHex(frToBytes(x));
const v = (i: bigint) => {
  const secret = voucherSecret(MASTER, i);
  return { secret, cm: voucherCommitment(secret), nf: voucherNullifier(secret) };
};

function config(over: Partial<OpsConfig> = {}): OpsConfig {
  return {
    voucherMaster: MASTER,
    leaderPks: [FUNDING],
    leaderWallet: { max_tx_fee: 1000n, funding_pk: frHex(FUNDING) },
    sdp: { ...DEFAULT_SDP, wallet: { max_tx_fee: 1000n, funding_pk: frHex(SDP_FUNDING) } },
    blend: DEFAULT_BLEND,
    kmsKeys: {},
    ...over,
  };
}

class Rig {
  readonly kv = new MemoryKv();
  readonly walletStore = new WalletStore(this.kv);
  readonly sdpStore = new SdpStore(this.kv);
  readonly mempool = new FakeMempool();
  readonly wallet = new FakeWallet(this.mempool);
  readonly proved: { inputs: PocPublicInputs; witness: PocWitness }[] = [];
  readonly chain = new VoucherChain();

  service(cfg: OpsConfig = config(), withWallet = true): OpsService {
    return OpsService.init(cfg, {
      chain: this.chain.chain,
      wallet: withWallet ? this.wallet : undefined,
      proofs: {
        provePoc: async (inputs, witness) => {
          this.proved.push({ inputs, witness });
          return new Uint8Array(128).fill(7);
        },
      },
      vouchers: this.walletStore,
      declarations: this.sdpStore,
      logger: pino({ level: 'silent' }),
    });
  }
}

/** Vouchers 0..3 handed out; blocks carry v0, a stranger's, v1, v2; the snapshot holds the first three. */
async function voucherRig(): Promise<Rig> {
  const r = new Rig();
  await r.walletStore.setNextVoucherIndex(4n);
  r.chain.extend(v(0n).cm, 999n, v(1n).cm, v(2n).cm);
  r.chain.snapshotCount = 3;
  return r;
}

const statuses = (ops: OpsService) => ops.walletVouchers().vouchers.map((x) => x.status);

describe('leader reward vouchers', () => {
  test('states: in the snapshot → available, after it or off the chain → not_yet_provable, nullified → claimed', async () => {
    const r = await voucherRig();
    const ops = r.service();
    assert.deepEqual(statuses(ops), ['available', 'available', 'not_yet_provable', 'not_yet_provable']);
    assert.deepEqual(
      ops.walletVouchers().vouchers.map((x) => x.position),
      [0, 2, 3, undefined],
    );
    r.chain.nullifiers = [v(0n).nf];
    assert.deepEqual(statuses(ops), ['claimed', 'available', 'not_yet_provable', 'not_yet_provable']);
    const c = ops.claimableVouchers();
    assert.deepEqual(c.vouchers, [{ commitment: v(1n).cm, nullifier: v(1n).nf }]);
    // 100 claimable over 3 − 1 unclaimed vouchers
    assert.equal(c.reward_amount, 50n);
  });

  test('a reorg that drops a voucher block makes it not provable', async () => {
    const r = await voucherRig();
    const ops = r.service();
    assert.equal(statuses(ops)[1], 'available');
    r.chain.reorg(2, v(2n).cm, 555n);
    assert.deepEqual(statuses(ops), ['available', 'not_yet_provable', 'available', 'not_yet_provable']);
  });

  test('no voucher master key: no vouchers and no aged notes', async () => {
    const r = await voucherRig();
    const ops = r.service(config({ voucherMaster: undefined }));
    assert.deepEqual(ops.walletVouchers().vouchers, []);
    r.chain.notes = r.chain.agedNotes = [[5n, record(FUNDING, 10n)]];
    assert.deepEqual(ops.agedNotes().notes, []);
  });

  test('claim: a LeaderClaim of the first available voucher, funded by the leader key, with its proof of claim', async () => {
    const r = await voucherRig();
    const ops = r.service();
    const hash = await ops.claim();
    const state = r.chain.state();
    const [req] = r.wallet.funded;
    assert.deepEqual(req!.builder.ops, [
      {
        opcode: Opcode.LeaderClaim,
        payload: { rewards_root: state.leader.snapshot.root, voucher_nullifier: v(0n).nf, pk: FUNDING },
      },
    ]);
    assert.equal(req!.changePk, FUNDING);
    assert.deepEqual(req!.fundingPks, [FUNDING]);
    assert.equal(req!.priorityFeePercent, 0n);
    const [added] = r.mempool.added;
    assert.equal(added!.origin, 'wallet');
    assert.deepEqual(hash, txHash(added!.tx.mantle_tx));
    assert.deepEqual(added!.tx.ops_proofs[0], { type: 'PoC', proof: new Uint8Array(128).fill(7) });
    assert.equal(added!.tx.ops_proofs[1]!.type, 'ZkSig');
    const [p] = r.proved;
    assert.deepEqual(p!.inputs, {
      voucher_nullifier: v(0n).nf,
      voucher_root: state.leader.snapshot.root,
      mantle_tx_hash: txHashToFr(hash),
    });
    assert.equal(p!.witness.voucher_secret, v(0n).secret);
    assert.equal(p!.witness.voucher_index, 0);
    assert.deepEqual(p!.witness.voucher_path, voucherPath(r.chain.cms.slice(0, 3), 0));
    assert.deepEqual(statuses(ops), ['reserved', 'available', 'not_yet_provable', 'not_yet_provable']);
  });

  test('a voucher with a pending claim is not claimed twice, across a restart too; the claim expires after k LIB blocks', async () => {
    const r = await voucherRig();
    await r.service().claim();
    await r.service().claim();
    const again = r.service();
    await assert.rejects(again.claim(), (e: OpsError) => {
      assert.equal(e.code, 'OPS_NO_CLAIMABLE_VOUCHER');
      assert.equal(e.message, 'Wallet API error: No claimable voucher found');
      return true;
    });
    assert.equal(r.mempool.added.length, 2);
    r.chain.libHeight = 3;
    assert.deepEqual(statuses(again).slice(0, 2), ['reserved', 'reserved']);
    r.chain.libHeight = 4;
    assert.deepEqual(statuses(again).slice(0, 2), ['available', 'available']);
  });

  test('concurrent claims take different vouchers', async () => {
    const r = await voucherRig();
    const ops = r.service();
    const [a, b] = await Promise.all([ops.claim(), ops.claim()]);
    assert.notDeepEqual(a, b);
    const nfs = r.wallet.funded.map(
      (f) => (f.builder.ops[0]!.payload as { voucher_nullifier: Fr }).voucher_nullifier,
    );
    assert.deepEqual(nfs, [v(0n).nf, v(1n).nf]);
  });

  test('a claim above the fee cap releases its voucher and notes; one the mempool refuses keeps both (F build_and_submit_claim_tx)', async () => {
    const r = await voucherRig();
    const ops = r.service();
    r.wallet.fee = 1001n;
    await assert.rejects(ops.claim(), /tx_fee=1001 > max_fee=1000/);
    assert.equal(statuses(ops)[0], 'available');
    assert.deepEqual(r.walletStore.pendingClaims(), []);
    assert.equal(r.wallet.released.length, 1, 'the claim above the cap released its funding');
    r.wallet.fee = 10n;
    r.mempool.failWith = new Error('Item already in mempool');
    await assert.rejects(ops.claim(), /Item already in mempool/);
    assert.equal(statuses(ops)[0], 'reserved', 'the refused claim keeps its voucher until it expires');
    assert.equal(r.walletStore.pendingClaims().length, 1);
    assert.equal(r.wallet.released.length, 1, 'and its notes');
    assert.equal(r.mempool.added.length, 0);
  });

  test('without a funding key or a wallet nothing is reserved', async () => {
    const r = await voucherRig();
    await assert.rejects(
      r.service(config({ leaderWallet: { max_tx_fee: 1n, funding_pk: null } })).claim(),
      /funding_pk is not configured/,
    );
    await assert.rejects(r.service(config(), false).claim(), (e: OpsError) => e.code === 'OPS_NO_WALLET');
    assert.deepEqual(r.walletStore.pendingClaims(), []);
  });
});

function record(pk: Fr, value: bigint, extra: { channel?: string; locked_by?: string } = {}) {
  return {
    note: { value, pk },
    index: 0,
    origin: 0n,
    output_index: 0,
    channel: extra.channel ?? null,
    locked_by: extra.locked_by ?? null,
  };
}

test('aged notes: the leader keys notes in the aged snapshot still unspent, not in a channel, not locked', () => {
  const r = new Rig();
  const other = zkPublicKey(5n);
  r.chain.agedNotes = [
    [3n, record(FUNDING, 30n)],
    [1n, record(FUNDING, 10n)],
    [2n, record(other, 20n)],
    [4n, record(FUNDING, 40n, { channel: 'c' })],
    [5n, record(FUNDING, 50n, { locked_by: 'd' })],
    [6n, record(FUNDING, 60n)],
  ];
  r.chain.notes = r.chain.agedNotes.filter(([id]) => id !== 6n);
  assert.deepEqual(r.service().agedNotes().notes, [
    { note_id: 1n, value: 10n, public_key: FUNDING },
    { note_id: 3n, value: 30n, public_key: FUNDING },
  ]);
  assert.throws(() => r.service().agedNotes(new Uint8Array(32).fill(0xee)), /Ledger state not found/);
});

describe('SDP', () => {
  const locator = locatorFromString('/ip4/127.0.0.1/udp/3400/quic-v1');
  const decl: SDPDeclareOp = {
    service_type: 'BN',
    locators: [locator],
    provider_id: ed25519PublicKey(new Uint8Array(32).fill(3)),
    zk_id: zkPublicKey(9n),
    service_note_id: 42n,
  };
  const id = declarationId(decl);
  const ledgerDecl = (nonce: bigint): Declaration => ({
    ...decl,
    locators: [locator],
    created: 1,
    active: 3,
    withdraw_at: null,
    nonce,
  });
  const metadata: ActivityMetadata = {
    Blend: {
      epoch: 1,
      signing_key: ed25519PublicKey(new Uint8Array(32).fill(4)),
      proof_of_quota: {
        key_nullifier: 0n,
        proof: { pi_a: new Uint8Array(32), pi_b: new Uint8Array(64), pi_c: new Uint8Array(32) },
      },
      proof_of_selection: { selection_randomness: 0n },
    },
  };

  test('declare: an SDPDeclare funded by the SDP key; it becomes the current declaration, kept across a restart', async () => {
    const r = new Rig();
    const res = await r.service().declare(decl);
    assert.deepEqual(res.declarationId, id);
    const [req] = r.wallet.funded;
    assert.deepEqual(req!.builder.ops, [{ opcode: Opcode.SDPDeclare, payload: decl }]);
    assert.equal(req!.changePk, SDP_FUNDING);
    assert.deepEqual(req!.fundingPks, [SDP_FUNDING]);
    assert.equal(req!.priorityFeePercent, 0n);
    assert.deepEqual(res.txHash, txHash(r.mempool.added[0]!.tx.mantle_tx));
    assert.deepEqual(r.service().currentDeclarationId(), id);
  });

  test('activity and withdrawal use the declaration nonce + 1; a withdrawal clears the current declaration', async () => {
    const r = new Rig();
    r.chain.declarations.set(bytesToHex(id), ledgerDecl(5n));
    const ops = r.service();
    await assert.rejects(ops.activity(metadata), /No declaration_id set/);
    await ops.setDeclarationId(id);
    const a = await ops.activity(metadata);
    assert.deepEqual(a.declarationId, id);
    assert.deepEqual(r.wallet.funded[0]!.builder.ops, [
      { opcode: Opcode.SDPActive, payload: { declaration_id: id, nonce: 6n, metadata } },
    ]);
    const w = await ops.withdraw(id);
    assert.deepEqual(w.declarationId, id);
    assert.deepEqual(r.wallet.funded[1]!.builder.ops, [
      { opcode: Opcode.SDPWithdraw, payload: { declaration_id: id, nonce: 6n, service_note_id: 42n } },
    ]);
    assert.equal(ops.currentDeclarationId(), undefined);
    assert.equal(r.service().currentDeclarationId(), undefined);
    assert.equal(r.mempool.added.length, 2);
  });

  test('set-declaration-id: an unknown id is refused and changes nothing; null clears; the config id is the fallback', async () => {
    const r = new Rig();
    r.chain.declarations.set(bytesToHex(id), ledgerDecl(0n));
    const configured = 'ab'.repeat(32);
    const cfg = config({ sdp: { ...config().sdp, declaration_id: configured } });
    const ops = r.service(cfg);
    assert.equal(bytesToHex(ops.currentDeclarationId()!), configured);
    await ops.setDeclarationId(id);
    await assert.rejects(ops.setDeclarationId(new Uint8Array(32).fill(0xee)), (e: OpsError) => {
      assert.equal(e.code, 'OPS_DECLARATION_NOT_FOUND');
      return true;
    });
    assert.deepEqual(ops.currentDeclarationId(), id);
    assert.deepEqual(r.service(cfg).currentDeclarationId(), id);
    await ops.setDeclarationId(null);
    assert.equal(ops.currentDeclarationId(), undefined);
    // F: a cleared declaration falls back to the configured one at the next start.
    assert.equal(bytesToHex(r.service(cfg).currentDeclarationId()!), configured);
  });

  test('a withdrawal of an unknown declaration or above the fee cap submits nothing and keeps the current one', async () => {
    const r = new Rig();
    r.chain.declarations.set(bytesToHex(id), ledgerDecl(0n));
    const ops = r.service();
    await ops.setDeclarationId(id);
    await assert.rejects(ops.withdraw(new Uint8Array(32).fill(1)), /not found in ledger/);
    r.wallet.fee = 1001n;
    await assert.rejects(ops.withdraw(id), /tx_fee=1001 > max_fee=1000/);
    assert.equal(r.mempool.added.length, 0);
    // F's SDP wallet returns TxFeeExceedsMaxFee after fund_tx reserved the notes: they stay reserved.
    assert.equal(r.wallet.released.length, 0);
    assert.deepEqual(ops.currentDeclarationId(), id);
  });

  test('Blend join declares the node with its Blend signing key and ZK key', async () => {
    const r = new Rig();
    const edSecret = new Uint8Array(32).fill(5);
    const edPk = bytesToHex(ed25519PublicKey(edSecret));
    const zkId = frHex(zkPublicKey(11n));
    const ops = r.service(
      config({
        blend: { non_ephemeral_signing_key_id: edPk, core_zk_secret_key_kms_id: zkId },
        kmsKeys: {
          [edPk]: { kind: 'Ed25519', secret: bytesToHex(edSecret) },
          [zkId]: { kind: 'Zk', secret: frHex(11n) },
        },
      }),
    );
    const res = await ops.joinBlend(locator, 42n);
    const expected: SDPDeclareOp = {
      service_type: 'BN',
      locators: [locator],
      provider_id: ed25519PublicKey(edSecret),
      zk_id: zkPublicKey(11n),
      service_note_id: 42n,
    };
    assert.deepEqual(r.wallet.funded[0]!.builder.ops, [{ opcode: Opcode.SDPDeclare, payload: expected }]);
    assert.deepEqual(res.declarationId, declarationId(expected));
    await assert.rejects(
      r.service().joinBlend(locator, 42n),
      /non_ephemeral_signing_key_id is not configured/,
    );
  });
});

test('channel deposit: one ChannelDeposit op submitted through the wallet with the request cap', async () => {
  const r = new Rig();
  const deposit = { channel_id: new Uint8Array(32), inputs: [5n], metadata: new Uint8Array([1, 2]) };
  const hash = await r
    .service()
    .channelDeposit({ deposit, changePk: 3n, fundingPks: [3n, 4n], maxTxFee: 10n });
  const [req] = r.wallet.funded;
  assert.deepEqual(req!.builder.ops, [{ opcode: Opcode.ChannelDeposit, payload: deposit }]);
  assert.equal(req!.changePk, 3n);
  assert.deepEqual(req!.fundingPks, [3n, 4n]);
  assert.equal(req!.maxTxFee, 10n);
  assert.equal(req!.priorityFeePercent, 0n);
  assert.deepEqual(hash, txHash(r.mempool.added[0]!.tx.mantle_tx));
  await assert.rejects(
    r.service().channelDeposit({ deposit, changePk: 3n, fundingPks: [3n], maxTxFee: 9n }),
    /tx_fee\(10\) exceeds max_tx_fee\(9\)/,
  );
  assert.equal(r.mempool.added.length, 1);
});
