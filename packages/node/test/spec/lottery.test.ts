/** The reference's lottery constant tests (zk/proofs/pol/src/lottery.rs). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { epochLottery, lotteryConstants } from '../../src/consensus/lottery.ts';

test('test_compute_lottery_constants (zk/proofs/pol/src/lottery.rs)', () => {
  const a = lotteryConstants({ num: 1n, den: 30n });
  assert.equal(a.T0, 0x1a3fb997fd5838f2a1585ee090a95c88129ab25cc4d2e2d28f1a95f81d85465n);
  assert.equal(a.T1, 0x71e790b4199113a9a00298d823c5716ddac764a110a45fe3b770bbb3e8a57n);
  const b = lotteryConstants({ num: 1n, den: 10n });
  assert.equal(b.T0, 0x5193d04d01fb16d1b9c55677fc83950d1cf88207f4a5756431fde6db9ab1768n);
  assert.equal(b.T1, 0x44c2a290c72d4dc7d6e514a4b9683cc6e7c15e64f0f59482ec7d3f5906784an);
});

test('test_compute_lottery_values (zk/proofs/pol/src/lottery.rs)', () => {
  const v = epochLottery(lotteryConstants({ num: 1n, den: 30n }), 1000n);
  assert.equal(v.t0, 0x6b83fe55f9383508b9bbe2d335e8e78d9c133ce0554b4f251b0ca3b6be8cn);
  assert.equal(v.t1, 0x30644e7269c19af80558c2b75767747a6fa9f2beb0e87df2e51121184e5e6c17n);
});
