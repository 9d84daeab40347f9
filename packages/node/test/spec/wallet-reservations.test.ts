/**
 * The reference's reservation tests (`services/wallet/src/states.rs`, `EXPIRY_BLOCKS = 4`), run against
 * the wallet service over a stand-in chain: a funded note stays reserved until that many blocks of LIB
 * progress, a released note is fundable again, and a LIB the wallet has no state for is deferred.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newBuilder } from '../../src/wallet/index.ts';
import { A, bid, ledger, notes, rec, startWallet, WalletChain } from '../mocks/wallet-chain.ts';

const EXPIRY_BLOCKS = 4;

test('pending_note_does_not_expire_without_lib_progress (services/wallet/src/states.rs)', async () => {
  const g = notes([[1n, rec(5000, A)]]);
  const chain = new WalletChain(ledger(g));
  const { wallet } = await startWallet(chain, undefined, undefined, EXPIRY_BLOCKS);
  await wallet.fund({ builder: newBuilder(), changePk: A, fundingPks: [A], priorityFeePercent: 0n });
  chain.add(1, 0, g);
  chain.setLib(0);
  assert.ok(wallet.isReserved(1n));
  await wallet.close();
});

test('pending_note_expires_after_enough_lib_progress (services/wallet/src/states.rs)', async () => {
  const g = notes([[1n, rec(5000, A)]]);
  const chain = new WalletChain(ledger(g));
  const { wallet } = await startWallet(chain, undefined, undefined, EXPIRY_BLOCKS);
  await wallet.fund({ builder: newBuilder(), changePk: A, fundingPks: [A], priorityFeePercent: 0n });
  assert.ok(wallet.isReserved(1n));
  let parent = 0;
  for (let n = 1; n <= 3; n++) {
    chain.add(n, parent, g);
    parent = n;
  }
  chain.setLib(3);
  assert.ok(wallet.isReserved(1n), 'EXPIRY_BLOCKS - 1 of LIB progress keeps it');
  chain.add(4, 3, g);
  chain.setLib(4);
  assert.ok(!wallet.isReserved(1n), 'the fourth immutable block releases it');
  await wallet.close();
});

test('released_pending_note_becomes_available (services/wallet/src/states.rs)', async () => {
  const chain = new WalletChain(ledger(notes([[1n, rec(5000, A)]])));
  const { wallet } = await startWallet(chain, undefined, undefined, EXPIRY_BLOCKS);
  const funded = await wallet.fund({
    builder: newBuilder(),
    changePk: A,
    fundingPks: [A],
    priorityFeePercent: 0n,
  });
  assert.ok(wallet.isReserved(1n));
  wallet.release(funded);
  assert.ok(!wallet.isReserved(1n));
  await wallet.fund({ builder: newBuilder(), changePk: A, fundingPks: [A], priorityFeePercent: 0n });
  await wallet.close();
});

test('lib_update_is_deferred_until_wallet_state_exists (services/wallet/src/states.rs)', async () => {
  const g = notes([[1n, rec(5000, A)]]);
  const chain = new WalletChain(ledger(g));
  const { wallet } = await startWallet(chain, undefined, undefined, EXPIRY_BLOCKS);
  await wallet.fund({ builder: newBuilder(), changePk: A, fundingPks: [A], priorityFeePercent: 0n });
  // A LIB announced for a block the wallet cannot derive (not in the tree) changes nothing: no
  // reservation ages, the wallet keeps answering at its blocks.
  chain.emit('lib', { id: bid(42), slot: 0n, height: 10 });
  assert.ok(wallet.isReserved(1n));
  assert.equal(wallet.balance(A, bid(0))!.balance, 5000n);
  await wallet.close();
});
