/**
 * Endpoints over a chain with transactions: a follower node (no leader keys) fed valid blocks with
 * transfers. Transactions by hash, block events, blocks with their transactions in every block
 * endpoint, all decoded through the typed client against the table's schemas, and the exact text
 * of the reference's formats where it matters.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseJson } from '@logos-ts/shared/json';
import { createClient, type LogosClient } from '../../../client/index.ts';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { type SignedMantleTx, signedTxToApiJson, txHash } from '../../../src/mantle/tx.ts';
import { feedBlocks, followerConfig } from '../../mocks/chain-feed.ts';
import { fastDeployment } from '../../mocks/fast-deployment.ts';
import { startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';

let tn: TestNode;
let client: LogosClient;
let txs: SignedMantleTx[];

before(async () => {
  // Genesis 20 s ago: slots 1..200 are in the past; k = 2, so all but the last two blocks are immutable.
  const genesis = Math.floor(Date.now() / 1000) - 20;
  tn = await startFastNode({ deployment: fastDeployment(100, 2, genesis), config: followerConfig() });
  client = createClient({ baseUrl: tn.base });
  await waitUntil(() => tn.node.chain.consensusState === 'Online', 10_000, 'Online');
  txs = await feedBlocks(tn.node.chain, 24, { txEvery: 3, txPerBlock: 2 });
});
after(() => tn.stop());

describe('a chain with transactions', () => {
  test('GET /cryptarchia/transaction/{id}: each included transaction, as the reference formats it', async () => {
    assert.equal(txs.length, 16);
    for (const tx of txs) {
      const hash = bytesToHex(txHash(tx.mantle_tx));
      const res = await fetch(`${tn.base}/cryptarchia/transaction/${hash}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json');
      const text = await res.text();
      assert.deepEqual(parseJson(text), signedTxToApiJson(tx));
      const typed = await client.cryptarchiaTransaction({ params: { id: hash } });
      assert.equal(typed.mantle_tx.hash, hash);
      assert.equal(typed.mantle_tx.ops[0]!.opcode, 0);
      assert.deepEqual(Object.keys(typed.ops_proofs[0] as object), ['ZkSig']);
    }
  });

  test('blocks carry their transactions in every block endpoint', async () => {
    const info = (await client.cryptarchiaInfo()).cryptarchia_info;
    assert.equal(info.height, 24n);
    const lines = [];
    for await (const l of await client.cryptarchiaBlocksRange({
      query: { order: 'ascending', slot_from: 0 },
    })) {
      lines.push(l);
    }
    assert.equal(lines.length, 25); // genesis and the 24 fed blocks
    // The genesis block holds the genesis transaction; the fed blocks hold the transfers.
    const withTxs = lines.slice(1).filter((l) => l.block.transactions.length > 0);
    assert.equal(withTxs.length, 8);
    const hashes = withTxs.flatMap((l) => l.block.transactions.map((t) => t.mantle_tx.hash));
    assert.deepEqual(
      hashes,
      txs.map((t) => bytesToHex(txHash(t.mantle_tx))),
    );

    const b = withTxs[0]!.block;
    assert.deepEqual(await client.cryptarchiaBlock({ params: { id: b.header.id } }), b);
    const immutable = await client.cryptarchiaBlocks({
      query: { slot_from: b.header.slot, slot_to: b.header.slot },
    });
    assert.deepEqual(immutable, [b]);

    // Plain transfers raise no ledger event (events are rewards, claims, deposits, ...): an empty list, not a 404.
    assert.deepEqual(await client.cryptarchiaBlockEvents({ params: { id: b.header.id } }), []);
  });

  test('gas prices at an old block and at the tip; headers over the whole chain', async () => {
    const ids = await client.cryptarchiaHeaders({ query: {} });
    assert.equal(ids.length, 3); // tip back to the LIB (k = 2), both included
    const first = (
      await client.cryptarchiaBlocksRange({ query: { order: 'ascending', slot_from: 1, blocks_limit: 1 } })
    )[Symbol.asyncIterator]();
    const { value } = await first.next();
    await first.return?.();
    const old = await client
      .mantleGasPrices({ query: { tip: value!.block.header.id } })
      .catch((e: unknown) => e);
    // States below the LIB are not kept: 404 as the reference answers for a block without a state.
    assert.equal((old as { status?: number }).status, 404);
    const now = await client.mantleGasPrices();
    assert.equal(typeof now.storage_gas_price, 'bigint');
  });
});
