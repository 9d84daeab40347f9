/**
 * The wallet service against a fake chain (ledger states with notes only) and a fake mempool: note
 * tracking per block across a fork and a restart from the persisted LIB notes, balances (channel notes
 * out, locked notes in), reservations (never funded twice, released when signing fails, kept when the
 * mempool refuses or a transfer proof cannot be signed, expiring with LIB progress, as F), the 32-input
 * limit and the fee cap refused with nothing reserved.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Fr } from '../../../src/crypto/field.ts';
import { DEFAULT_KMS, KeyStore } from '../../../src/kms/index.ts';
import type { NoteRecord } from '../../../src/ledger/state.ts';
import { Bucket } from '../../../src/storage/buckets.ts';
import { addLedgerOutputs, newBuilder, WalletError } from '../../../src/wallet/index.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';
import { A, B, bid, ledger, notes, rec, startWallet, WalletChain } from '../../mocks/wallet-chain.ts';

test('balances follow each fork; channel notes are not counted, SDP-locked notes are', async () => {
  const g = notes([
    [1n, rec(5000, A)],
    [2n, rec(300, A, { channel: 'aa'.repeat(32) })],
    [3n, rec(200, A, { locked_by: 'bb'.repeat(32) })],
    [9n, rec(1, 99n)],
  ]);
  const chain = new WalletChain(ledger(g));
  const { wallet } = await startWallet(chain);
  assert.equal(wallet.balance(A)!.balance, 5200n);
  assert.deepEqual(
    wallet
      .balance(A)!
      .notes.map((n) => n.id)
      .sort(),
    [1n, 3n],
  );
  assert.equal(wallet.balance(B), undefined, 'a key without notes answers none (404)');
  // Fork 1 (blocks 1): A's 5000 note goes to B. Fork 2 (block 2): a new note for A.
  chain.add(1, 0, g.delete(1n).set(10n, rec(4000, B)).set(11n, rec(900, A)));
  chain.add(2, 0, g.set(12n, rec(7, A)));
  assert.equal(wallet.balance(A, bid(1))!.balance, 1100n);
  assert.equal(wallet.balance(B, bid(1))!.balance, 4000n);
  assert.equal(wallet.balance(A, bid(2))!.balance, 5207n);
  assert.equal(wallet.balance(B, bid(2)), undefined);
  // Block ids print as F's `HeaderId` `Display`: 0x and hex (`WalletError::UnknownBlock`).
  assert.throws(() => wallet.balance(A, bid(77)), {
    code: 'WALLET_UNKNOWN_BLOCK',
    message: `Requested wallet state for unknown block: 0x${'4d'.repeat(32)}`,
  });
  // F `WalletServiceError::LedgerStateNotFound`: funding at a block with no ledger state.
  await assert.rejects(
    wallet.fund({
      tip: bid(77),
      builder: newBuilder(),
      changePk: A,
      fundingPks: [A],
      priorityFeePercent: 0n,
    }),
    { message: `Ledger state corresponding to block 0x${'4d'.repeat(32)} not found` },
  );
  await wallet.close();
});

test('a block the wallet did not see is derived on demand; a restart starts from the persisted LIB notes', async () => {
  const g = notes([[1n, rec(5000, A)]]);
  const chain = new WalletChain(ledger(g));
  const first = await startWallet(chain);
  chain.add(1, 0, g.set(2n, rec(10, B)));
  chain.setLib(1);
  await first.wallet.close();
  // Blocks processed while the wallet is not running.
  chain.add(2, 1, chain.notesOf(1).set(3n, rec(20, B)));
  chain.add(3, 2, chain.notesOf(2).delete(1n));
  // The persisted notes are at block 1: the restart must not scan the ledger. Make a scan visible by
  // corrupting the ledger's view of block 1 (a scan would see no notes at all).
  const persisted = first.kv;
  const scanned = chain.setState(bid(1), ledger(notes([])));
  const second = await startWallet(chain, persisted);
  chain.setState(bid(1), scanned);
  // Block 2 and 3 derive from the persisted block-1 notes and the ledger diffs.
  assert.equal(second.wallet.balance(B, bid(3))!.balance, 30n);
  assert.equal(second.wallet.balance(A, bid(3)), undefined);
  assert.equal(second.wallet.balance(A, bid(2))!.balance, 5000n);
  await second.wallet.close();
  assert.ok(persisted.get(Bucket.Wallet, new TextEncoder().encode('lib_notes')));
});

test('transfers: fee from the largest note, change to the change key, reserved notes never funded twice', async () => {
  const g = notes([
    [1n, rec(5000, A)],
    [2n, rec(3000, A)],
  ]);
  const chain = new WalletChain(ledger(g));
  const { wallet, mempool } = await startWallet(chain);
  const t1 = wallet.transfer({ changePk: A, fundingPks: [A], recipientPk: B, amount: 100n });
  const t2 = wallet.transfer({ changePk: A, fundingPks: [A], recipientPk: B, amount: 100n });
  await Promise.all([t1, t2]);
  const inputs = mempool.added.map(({ tx }) => (tx.mantle_tx.ops.at(-1)!.payload as { inputs: Fr[] }).inputs);
  assert.deepEqual(inputs, [[1n], [2n]], 'the second transfer funds with the next note');
  const out = mempool.added[0]!.tx.mantle_tx.ops.at(-1)!.payload as { outputs: { value: bigint; pk: Fr }[] };
  assert.equal(out.outputs[0]!.value, 100n);
  assert.equal(out.outputs[0]!.pk, B);
  assert.equal(out.outputs[1]!.pk, A, 'change last, to the change key');
  assert.ok(out.outputs[1]!.value < 4900n && out.outputs[1]!.value > 4000n);
  assert.equal(mempool.added[0]!.tx.ops_proofs[0]!.type, 'ZkSig');
  // Both notes are reserved: a third transfer has nothing left.
  await assert.rejects(
    wallet.transfer({ changePk: A, fundingPks: [A], recipientPk: B, amount: 1n }),
    /Wallet does not have enough funds, available=0/,
  );
  await wallet.close();
});

test('a mempool refusal keeps the reservation until LIB progress expires it (F transfer_funds, PendingNotes)', async () => {
  const chain = new WalletChain(ledger(notes([[100n, rec(5000, B)]])));
  const { wallet, mempool } = await startWallet(chain, undefined, undefined, 2);
  mempool.failWith = new Error('pool full');
  await assert.rejects(
    wallet.transfer({ changePk: B, fundingPks: [B], recipientPk: A, amount: 1n }),
    /pool full/,
  );
  assert.ok(wallet.isReserved(100n), 'F releases nothing when the mempool refuses');
  mempool.failWith = undefined;
  await assert.rejects(
    wallet.transfer({ changePk: B, fundingPks: [B], recipientPk: A, amount: 1n }),
    /Wallet does not have enough funds, available=0/,
  );
  // pending_note_does_not_expire_without_lib_progress / pending_note_expires_after_enough_lib_progress
  // (F expiry 2 blocks here): one block of LIB progress keeps it, the second releases it.
  chain.add(1, 0, notes([[100n, rec(5000, B)]]));
  chain.add(2, 1, notes([[100n, rec(5000, B)]]));
  chain.setLib(1);
  assert.ok(wallet.isReserved(100n));
  chain.setLib(2);
  assert.ok(!wallet.isReserved(100n));
  await wallet.transfer({ changePk: B, fundingPks: [B], recipientPk: A, amount: 1n });
  assert.equal(mempool.added.length, 1);
  await wallet.close();
});

test('a /wallet/fund whose transfer proof cannot be signed keeps its reservation (F FundTx, then SignTxWithZk)', async () => {
  const chain = new WalletChain(ledger(notes([[1n, rec(5000, A)]])));
  // A key store without A's key: the wallet tracks A's notes but cannot sign for them.
  const { wallet } = await startWallet(
    chain,
    undefined,
    undefined,
    4,
    KeyStore.init(DEFAULT_KMS, { proofs: INSECURE_TEST_PROOFS }),
  );
  await assert.rejects(
    wallet.fund({ builder: newBuilder(), changePk: A, fundingPks: [A], priorityFeePercent: 0n }),
    /NotRegisteredKeyId/,
  );
  assert.ok(wallet.isReserved(1n));
  await wallet.close();
});

test('fee cap and 32-input limit reserve nothing', async () => {
  const many = notes(
    Array.from({ length: 40 }, (_, i) => [BigInt(i + 1), rec(100, A)] as [bigint, NoteRecord]),
  );
  const chain = new WalletChain(ledger(many.set(100n, rec(5000, B))));
  const { wallet } = await startWallet(chain);
  await assert.rejects(
    wallet.fund({
      builder: newBuilder(),
      changePk: B,
      fundingPks: [B],
      priorityFeePercent: 0n,
      maxTxFee: 10n,
    }),
    (e) => e instanceof WalletError && /^tx_fee\(\d+\) exceeds max_tx_fee\(10\)$/.test(e.message),
  );
  assert.ok(!wallet.isReserved(100n));
  // 40 notes of 100 pay 1,500 and its fee with about 35 inputs: more than one transfer can spend.
  const builder = addLedgerOutputs(newBuilder(), [{ value: 1500n, pk: B }]);
  await assert.rejects(
    wallet.fund({ builder, changePk: A, fundingPks: [A], priorityFeePercent: 0n }),
    (e) => e instanceof WalletError && e.code === 'WALLET_TOO_MANY_INPUTS',
  );
  for (let i = 1; i <= 40; i++) assert.ok(!wallet.isReserved(BigInt(i)));
  await wallet.close();
});

test('a claim funded, its PoC added over the funded hash, then signed and submitted; without it, released', async () => {
  const chain = new WalletChain(ledger(notes([[1n, rec(5000, A)]])));
  const { wallet, mempool } = await startWallet(chain);
  const claim = newBuilder([{ opcode: 48, payload: { rewards_root: 1n, voucher_nullifier: 2n, pk: A } }]);
  const funded = await wallet.fund({ builder: claim, changePk: A, fundingPks: [A], priorityFeePercent: 0n });
  await assert.rejects(
    wallet.sign(funded),
    (e) => e instanceof WalletError && e.code === 'WALLET_MISSING_PROOF' && /op index 0/.test(e.message),
  );
  assert.ok(!wallet.isReserved(1n), 'a failed signature releases the notes');
  const again = await wallet.fund({ builder: claim, changePk: A, fundingPks: [A], priorityFeePercent: 0n });
  const poc = { type: 'PoC' as const, proof: new Uint8Array(128).fill(9) };
  await wallet.submitSigned(
    await wallet.sign({ ...again, builder: { ...again.builder, opProofs: new Map([[0, poc]]) } }),
  );
  const { tx } = mempool.added[0]!;
  assert.deepEqual(tx.ops_proofs[0], poc);
  assert.equal(tx.ops_proofs[1]!.type, 'ZkSig');
  assert.deepEqual(tx.ops_proofs[1], { type: 'ZkSig', signature: again.transferProof });
  await wallet.close();
});
