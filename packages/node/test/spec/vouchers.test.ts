/**
 * Voucher derivation as the reference (`kms/operators/src/zk/voucher.rs`: Poseidon2 digest of
 * [master key, index]; `core/src/mantle/ops/leader_claim.rs`: the commitment). The values are the
 * Poseidon2 vectors of the reference notes (crypto.md §4.3), read as master key 1 and index 2.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { frFromAscii } from '../../src/crypto/field.ts';
import { compress, digest } from '../../src/crypto/poseidon2/index.ts';
import { VoucherGenerator, voucherCommitment, voucherSecret } from '../../src/leader/vouchers.ts';

test('voucher secret = Poseidon2 digest([master key, index])', () => {
  assert.equal(
    voucherSecret(1n, 2n),
    14118544982895877636855211757199904519359053761360294109973292038354361461611n,
  );
  assert.equal(
    voucherSecret(0n, 0n),
    14628790903668924121747280216643356178740756932733894594323650293252618457042n,
  );
  assert.equal(voucherSecret(100n, 0n), digest([100n, 0n]));
});

test('voucher commitment = Poseidon2 compress([REWARD_VOUCHER, secret])', () => {
  assert.equal(frFromAscii('REWARD_VOUCHER'), 1668646695034522932676805048878418n);
  assert.equal(voucherCommitment(5n), compress(frFromAscii('REWARD_VOUCHER'), 5n));
});

test('vouchers come in index order; the next index is stored before a voucher is handed out', async () => {
  let stored = 7n;
  const writes: bigint[] = [];
  const store = {
    nextVoucherIndex: () => stored,
    setNextVoucherIndex: async (i: bigint) => {
      writes.push(i);
      stored = i;
    },
  };
  const g = new VoucherGenerator(9n, store);
  const a = await g.next();
  const b = await g.next();
  assert.deepEqual([a.index, b.index], [7n, 8n]);
  assert.deepEqual(writes, [8n, 9n]);
  assert.equal(a.secret, voucherSecret(9n, 7n));
  assert.equal(b.cm, voucherCommitment(voucherSecret(9n, 8n)));
});
