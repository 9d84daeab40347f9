/**
 * The mempool of a running node over HTTP (a fast in-process node with the insecure test proofs), after
 * the reference's `mempool.feature` scenarios: a submitted transaction is pending and visible, then
 * included and gone from the view; a second submission answers 200 null; a forged proof is the
 * reference's 422 text; an oversized transaction is a 500 ErrorBody; nothing refused is retained.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { stringifyJson } from '@logos-ts/shared/json';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { MAX_INSCRIPTION_BYTES } from '../../../src/mantle/ops.ts';
import { type SignedMantleTx, signedMantleTx, txHash } from '../../../src/mantle/tx.ts';
import { genesisNotes, KEYS, transfer } from '../../mocks/ledger.ts';
import { inscriptionsTx } from '../../unit/mempool/inscriptions.ts';
import { startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';

let tn: TestNode;
before(async () => {
  tn = await startFastNode();
});
after(() => tn.stop());

async function post(path: string, body: unknown) {
  const res = await fetch(tn.base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : stringifyJson(body as never),
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

const get = async (path: string) => {
  const res = await fetch(tn.base + path);
  return { status: res.status, text: await res.text() };
};

/** The mempool's view: the hashes of its pending transactions. */
const view = async () => JSON.parse((await get('/mempool/view')).text) as string[];

/** What the mempool holds: its metrics (count, last addition) and its view (the pending hashes). */
const mempoolState = async () => ({
  metrics: JSON.parse((await get('/mantle/metrics')).text) as {
    pending_items: number;
    last_item_timestamp: number;
  },
  view: (await view()).sort(),
});

/** Runs `fn` with the leader paused: no block takes a pending transaction meanwhile. */
async function withoutBlocks(fn: () => Promise<void>): Promise<void> {
  tn.node.leader.pause();
  try {
    await fn();
  } finally {
    tn.node.leader.resume();
  }
}

const submit = (tx: SignedMantleTx) => post('/mempool/add/tx', signedMantleTx.toJson(tx));
const status = async (h: string) => JSON.parse((await post('/mantle/status', [h])).text)[0] as string;

/** A transfer from the `i`-th genesis note of the devnet keys, on the node's tip state. */
function transferTx(i: number, sk?: bigint): SignedMantleTx {
  const chain = tn.node.chain;
  const note = genesisNotes(chain.genesis)[i]!;
  return transfer(
    chain.tip().state,
    [sk === undefined ? note : { ...note, sk }],
    [{ value: 10n, pk: KEYS[3]!.publicKey }],
  ).tx;
}

describe('mempool lifecycle', () => {
  test('Submitted transaction becomes visible, is included and leaves the mempool view', async () => {
    const tx = transferTx(0);
    const h = bytesToHex(txHash(tx.mantle_tx));
    // No block until the pending state is checked: a fast block could take the transaction first.
    await withoutBlocks(async () => {
      const r = await submit(tx);
      assert.equal(r.status, 200);
      assert.equal(r.text, 'null');
      assert.equal(await status(h), 'Pending');
      assert.ok((await view()).includes(h), 'a pending transaction is in the view');
      assert.equal(
        (await get(`/cryptarchia/transaction/${h}`)).status,
        200,
        'a pending transaction is served',
      );
    });
    await waitUntil(
      async () => tn.node.chain.transactionLocation(txHash(tx.mantle_tx)) !== undefined,
      20_000,
      'inclusion',
    );
    assert.equal(await status(h), 'Unknown', 'an included transaction is no longer pending');
    assert.ok(!(await view()).includes(h));
    const inc = await get(`/cryptarchia/transaction/${h}`);
    assert.equal(inc.status, 200);
    assert.equal(JSON.parse(inc.text).mantle_tx.hash, h);
  });

  test('a second submission of a pending transaction answers 200 null and adds nothing', async () => {
    // No block takes it meanwhile.
    await withoutBlocks(async () => {
      const tx = transferTx(1);
      assert.equal((await submit(tx)).text, 'null');
      const before = JSON.parse((await get('/mantle/metrics')).text);
      const again = await submit(tx);
      assert.equal(again.status, 200);
      assert.equal(again.text, 'null');
      assert.deepEqual(JSON.parse((await get('/mantle/metrics')).text), before);
      assert.equal(await status(bytesToHex(txHash(tx.mantle_tx))), 'Pending');
    });
  });

  test('Invalid transaction is not retained in mempool: a forged ZK signature is the reference 422', async () => {
    // No block meanwhile: a block taking a transaction still pending would change the counts compared.
    await withoutBlocks(async () => {
      const tx = transferTx(2, 999n);
      const before = await mempoolState();
      const r = await submit(tx);
      assert.equal(r.status, 422);
      assert.match(r.type, /^text\/plain/);
      assert.equal(
        r.text,
        'Failed to deserialize the JSON body into the target type: Transfer verification error: Invalid transfer ZkSignature',
      );
      assert.equal(await status(bytesToHex(txHash(tx.mantle_tx))), 'Unknown');
      assert.deepEqual(await mempoolState(), before, 'nothing added to the mempool');
    });
  });

  test('a transaction over 2 MiB is a 500 ErrorBody with the reference text', async () => {
    const tx = inscriptionsTx(MAX_INSCRIPTION_BYTES);
    const r = await submit(tx);
    assert.equal(r.status, 500);
    const body = JSON.parse(r.text) as { code: number; message: string };
    assert.equal(body.code, 500);
    assert.match(body.message, /^Item is too large: \d+ bytes exceeds maximum 2097152 bytes$/);
    assert.equal(await status(bytesToHex(txHash(tx.mantle_tx))), 'Unknown');
  });

  test('malformed bodies are 4xx plain text and add nothing', async () => {
    // No block meanwhile: a block taking a transaction still pending would change the counts compared.
    await withoutBlocks(async () => {
      const before = await mempoolState();
      for (const body of [
        '{',
        '[]',
        'null',
        '{"mantle_tx":{"ops":[]}}',
        '{"mantle_tx":{"ops":[]},"ops_proofs":[{"ZkSig":1}]}',
      ]) {
        const r = await post('/mempool/add/tx', body);
        assert.ok(r.status >= 400 && r.status < 500, `${body}: ${r.status}`);
        assert.match(r.type, /^text\/plain/);
      }
      const bad = await post('/mantle/status', ['00']);
      assert.equal(bad.status, 422);
      assert.deepEqual(await mempoolState(), before, 'nothing added to the mempool');
    });
  });
});
