/**
 * Pending leader-reward claims of services/wallet/src/states.rs: a reserved voucher stays reserved
 * until the LIB has advanced by the expiry (F counts newly immutable blocks per LIB update; here the
 * LIB height at reservation is kept and compared, with the expiry = the security parameter as F's
 * `advance_lib` passes it).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { voucherCommitment, voucherNullifier, voucherSecret } from '../../src/leader/index.ts';
import { VoucherBook } from '../../src/ops/vouchers.ts';
import { MemoryKv } from '../../src/storage/kv.ts';
import { WalletStore } from '../../src/storage/wallet-store.ts';
import { VoucherChain } from '../mocks/voucher-chain.ts';

const F = 'services/wallet/src/states.rs';
const EXPIRY_BLOCKS = 4;
const MASTER = 7n;

async function reservedBook(): Promise<{ book: VoucherBook; chain: VoucherChain; reserved: () => boolean }> {
  const store = new WalletStore(new MemoryKv());
  await store.setNextVoucherIndex(1n);
  const chain = new VoucherChain(EXPIRY_BLOCKS);
  const secret = voucherSecret(MASTER, 0n);
  chain.extend(voucherCommitment(secret), 1n, 2n, 3n, 4n, 5n);
  chain.snapshotCount = 1;
  const book = new VoucherBook(MASTER, store, chain.chain);
  await book.reserve(voucherNullifier(secret));
  return { book, chain, reserved: () => book.view()[0]!.status === 'reserved' };
}

test(`pending_claim_does_not_expire_without_lib_progress (${F})`, async () => {
  const { reserved } = await reservedBook();
  // evict_expired(0, EXPIRY_BLOCKS)
  assert.ok(reserved());
});

test(`pending_claim_expires_after_enough_lib_progress (${F})`, async () => {
  const { chain, reserved } = await reservedBook();
  chain.libHeight += EXPIRY_BLOCKS - 1; // evict_expired(EXPIRY_BLOCKS - 1, EXPIRY_BLOCKS)
  assert.ok(reserved());
  chain.libHeight += 1; // evict_expired(1, EXPIRY_BLOCKS)
  assert.ok(!reserved());
});
