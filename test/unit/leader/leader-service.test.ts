/**
 * Block production: a produced block carries the uncles the chain selects for it, and commits to the
 * wallet's next voucher (digest([master key, index]) with an index that is stored and never reused).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pino } from 'pino';
import { headerId } from '../../../src/block/header.ts';
import { ChainService } from '../../../src/chain/chain-service.ts';
import { SlotClock } from '../../../src/chain/clock.ts';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { LeaderService, NO_TRANSACTIONS } from '../../../src/leader/index.ts';
import { VoucherGenerator, voucherCommitment, voucherSecret } from '../../../src/leader/vouchers.ts';
import { devnetKeys, devnetSecretKey } from '../../../src/ledger/devnet-keys.ts';
import { openStore } from '../../../src/storage/open.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';
import { FAST } from '../../mocks/fast-deployment.ts';
import { TestChain } from '../../mocks/ledger.ts';

const dir = mkdtempSync(join(tmpdir(), 'logos-leader-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('a produced block carries its uncles and the next voucher of the wallet', async () => {
  const store = await openStore(dir);
  try {
    const logger = pino({ level: 'silent' });
    const genesisMs = 1_700_000_000_000;
    const clock = new SlotClock(genesisMs, FAST.slot_duration_ms, () => genesisMs + 10 ** 9);
    const chain = new ChainService(
      { deployment: FAST, genesisTimeMs: genesisMs, online: false },
      { store: store.chain, proofs: INSECURE_TEST_PROOFS, clock, logger },
    );
    await chain.start();
    // Two blocks on genesis: a1 is the tip, b1 a fork block (an uncle candidate).
    const t = new TestChain(FAST);
    const a1 = t.block([], 1n);
    const b1 = t.block([], 2n, 8n);
    await chain.submit(a1);
    await chain.submit(b1);
    assert.equal(bytesToHex(chain.tip().id), bytesToHex(headerId(a1.header)));

    const master = devnetSecretKey(1000);
    const leader = new LeaderService(
      {
        secretKeys: devnetKeys(4).map((k) => k.secretKey),
        vouchers: new VoucherGenerator(master, store.wallet),
      },
      { chain, clock, proofs: INSECURE_TEST_PROOFS, txs: NO_TRANSACTIONS, logger },
    );
    let slot = 3n;
    for (; leader.produced === 0 && slot < 20n; slot++) await leader.onSlot(slot);
    assert.equal(leader.produced, 1);
    const first = chain.block(chain.tip().id)!;
    assert.deepEqual(
      first.uncle_headers.map((u) => bytesToHex(headerId(u.header))),
      [bytesToHex(headerId(b1.header))],
    );
    assert.equal(first.header.proof_of_leadership.voucher_cm, voucherCommitment(voucherSecret(master, 0n)));
    assert.equal(store.wallet.nextVoucherIndex(), 1n);

    for (; leader.produced === 1 && slot < 40n; slot++) await leader.onSlot(slot);
    assert.equal(leader.produced, 2);
    const second = chain.block(chain.tip().id)!;
    assert.deepEqual(second.uncle_headers, [], 'the uncle is referenced once');
    assert.equal(second.header.proof_of_leadership.voucher_cm, voucherCommitment(voucherSecret(master, 1n)));
    assert.equal(store.wallet.nextVoucherIndex(), 2n);

    // After a restart the wallet goes on from the stored index.
    const again = new VoucherGenerator(master, store.wallet);
    assert.equal((await again.next()).index, 2n);
    assert.equal(store.wallet.nextVoucherIndex(), 3n);
    await chain.drain();
  } finally {
    await store.close();
  }
});
