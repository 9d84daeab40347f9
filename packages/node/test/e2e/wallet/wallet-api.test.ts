/**
 * The `/wallet/*` endpoints of a devnet-configured node (FAST deployment, insecure test proofs): a
 * funded key's balance (JSON with a text/plain content type), 404 for a key with no notes, funding an
 * empty builder, the fee cap, ZK and Ed25519 signing with the node's keys (F's refusal texts, more than 32
 * ZK keys refused while decoding), and a table of bad inputs,
 * each refused with the reference's status and changing nothing (the notes stay fundable).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseJson } from '@logos-ts/shared/json';
import { createClient } from '../../../client/index.ts';
import { fundAndSign, transfer, waitForInclusion } from '../../../client/wallet.ts';
import { fundedDevnetKeys } from '../../../src/node/devnet.ts';
import { startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';

let tn: TestNode;
const [k0, k1] = fundedDevnetKeys() as unknown as [{ publicKey: string }, { publicKey: string }];
const ZERO = '00'.repeat(32);
const EMPTY_BUILDER = {
  mantle_tx: { ops: [] },
  ledger_inputs: [],
  pending_transfer: { inputs: [], outputs: [] },
  channel_multi_sig_proofs: {},
};

before(async () => {
  tn = await startFastNode();
  await waitUntil(() => tn.node.chain.tip().height >= 1, 20_000, 'a first block');
});
after(() => tn.stop());

async function post(path: string, body: unknown, raw = false) {
  const res = await fetch(`${tn.base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: raw ? (body as string) : JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

const fundBody = (extra: Record<string, unknown> = {}) => ({
  tx_builder: EMPTY_BUILDER,
  change_public_key: k0.publicKey,
  funding_public_keys: [k0.publicKey],
  max_tx_fee: 1_000_000_000,
  ...extra,
});

describe('wallet endpoints', () => {
  test('GET /wallet/{pk}/balance: a funded devnet key, as text/plain JSON; 404 for a key with no notes', async () => {
    const res = await fetch(`${tn.base}/wallet/${k0.publicKey}/balance`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
    const b = parseJson(await res.text()) as {
      tip: string;
      balance: bigint | number;
      notes: object;
      address: string;
    };
    assert.deepEqual(Object.keys(b), ['tip', 'balance', 'notes', 'address']);
    assert.equal(b.address, k0.publicKey);
    assert.ok(BigInt(b.balance) > 0n);
    assert.ok(Object.keys(b.notes).length > 0);
    const at = await fetch(`${tn.base}/wallet/${k0.publicKey}/balance?tip=${b.tip}`);
    assert.equal(at.status, 200);
    const none = await fetch(`${tn.base}/wallet/${'01'.padEnd(64, '0')}/balance`);
    assert.equal(none.status, 404);
    const unknownTip = await fetch(`${tn.base}/wallet/${k0.publicKey}/balance?tip=${'ee'.repeat(32)}`);
    assert.equal(unknownTip.status, 500);
    assert.deepEqual(JSON.parse(await unknownTip.text()), {
      code: 500,
      message: `Requested wallet state for unknown block: 0x${'ee'.repeat(32)}`,
    });
    const outOfField = await fetch(`${tn.base}/wallet/${'ff'.repeat(32)}/balance`);
    assert.equal(outOfField.status, 400);
    assert.match(outOfField.headers.get('content-type') ?? '', /text\/plain/);
  });

  test('POST /wallet/fund: the fee transfer last, its ZkSig; over max_tx_fee refused with nothing reserved', async () => {
    const refused = await post('/wallet/fund', fundBody({ max_tx_fee: 0 }));
    assert.equal(refused.status, 500);
    assert.match(refused.text, /tx_fee\(\d+\) exceeds max_tx_fee\(0\)/);
    const r = await post(
      '/wallet/fund',
      fundBody({ funding_public_keys: [k1.publicKey], change_public_key: k1.publicKey }),
    );
    assert.equal(r.status, 200, r.text);
    const j = parseJson(r.text) as {
      tip: string;
      funded_tx: { ops: { opcode: number; payload: { inputs: string[]; outputs: { pk: string }[] } }[] };
      transfer_proof: { ZkSig: object } | null;
    };
    assert.deepEqual(Object.keys(j), ['tip', 'funded_tx', 'transfer_proof']);
    const last = j.funded_tx.ops.at(-1)!;
    assert.equal(last.opcode, 0);
    assert.equal(last.payload.inputs.length, 1);
    assert.equal(last.payload.outputs.at(-1)!.pk, k1.publicKey, 'change to the change key');
    assert.ok(j.transfer_proof && 'ZkSig' in j.transfer_proof);
  });

  test('POST /wallet/sign/zk and /wallet/sign/ed25519', async () => {
    const zk = await post('/wallet/sign/zk', { tx_hash: ZERO, pks: [k0.publicKey] });
    assert.equal(zk.status, 200, zk.text);
    assert.deepEqual(Object.keys((parseJson(zk.text) as { sig: object }).sig), ['pi_a', 'pi_b', 'pi_c']);
    const unknownZk = await post('/wallet/sign/zk', { tx_hash: ZERO, pks: [ZERO] });
    assert.equal(unknownZk.status, 500);
    assert.deepEqual(JSON.parse(unknownZk.text), {
      code: 500,
      message: `KMS API error: Failed to get multiple signature: NotRegisteredKeyId("${ZERO}")`,
    });
    const ed = await post('/wallet/sign/ed25519', { tx_hash: ZERO, pk: `58${'66'.repeat(31)}` });
    assert.equal(ed.status, 500);
    assert.deepEqual(JSON.parse(ed.text), { code: 500, message: 'KMS API error: Failed to get signature.' });
  });

  test('POST /wallet/sign/zk with more than 32 keys: 422 plain text, as F bounded `ZkPublicKeys`', async () => {
    const many = await post('/wallet/sign/zk', { tx_hash: ZERO, pks: Array(33).fill(k0.publicKey) });
    assert.equal(many.status, 422);
    assert.match(many.type, /^text\/plain/);
    assert.equal(
      many.text,
      'Failed to deserialize the JSON body into the target type: pks: Item count 33 exceeds static maximum of 32',
    );
    const max = await post('/wallet/sign/zk', { tx_hash: ZERO, pks: Array(32).fill(k0.publicKey) });
    assert.equal(max.status, 200, max.text);
    // No key at all passes the bound (F `UpperBoundedVec`) and is refused by F's KMS.
    const none = await post('/wallet/sign/zk', { tx_hash: ZERO, pks: [] });
    assert.equal(none.status, 500);
    assert.deepEqual(JSON.parse(none.text), {
      code: 500,
      message:
        'KMS API error: Failed to get multiple signature: KeyError(UnsupportedKey("Multi-key signature requires at least two keys."))',
    });
  });

  test('bad input is refused with the reference statuses and reserves nothing', async () => {
    const transfer = {
      change_public_key: k0.publicKey,
      funding_public_keys: [k0.publicKey],
      recipient_public_key: k1.publicKey,
      amount: 1,
    };
    const cases: [string, unknown, number, boolean?][] = [
      ['/wallet/transactions/transfer-funds', '{"amount":', 400, true],
      ['/wallet/transactions/transfer-funds', { ...transfer, amount: '1' }, 422],
      [
        '/wallet/transactions/transfer-funds',
        '{"change_public_key":"00","amount":18446744073709551616}',
        422,
        true,
      ],
      ['/wallet/transactions/transfer-funds', { ...transfer, amount: -1 }, 422],
      ['/wallet/transactions/transfer-funds', { ...transfer, recipient_public_key: 'ff'.repeat(32) }, 422],
      ['/wallet/transactions/transfer-funds', { ...transfer, funding_public_keys: 'x' }, 422],
      ['/wallet/transactions/transfer-funds', { amount: 1 }, 422],
      ['/wallet/fund', fundBody({ max_tx_fee: 18446744073709551615n.toString() }), 422],
      [
        '/wallet/fund',
        fundBody({ tx_builder: { ...EMPTY_BUILDER, mantle_tx: { ops: [{ opcode: 99 }] } } }),
        422,
      ],
      [
        '/wallet/fund',
        fundBody({ tx_builder: { ...EMPTY_BUILDER, pending_transfer: { inputs: [ZERO], outputs: [] } } }),
        422,
      ],
      [
        '/wallet/fund',
        fundBody({ tx_builder: { ...EMPTY_BUILDER, channel_multi_sig_proofs: { x: {} } } }),
        422,
      ],
      ['/wallet/sign/zk', { tx_hash: 'zz', pks: [] }, 422],
      // All-zero bytes decompress to a curve point: a key the store lacks (500), not a malformed one.
      ['/wallet/sign/ed25519', { tx_hash: ZERO, pk: '00'.repeat(32) }, 500],
      ['/wallet/sign/ed25519', { tx_hash: ZERO, pk: '02'.repeat(32) }, 422],
    ];
    for (const [path, body, status, raw] of cases) {
      const r = await post(path, body, raw);
      assert.equal(
        r.status,
        status,
        `${path} ${typeof body === 'string' ? body : JSON.stringify(body)}: ${r.text}`,
      );
    }
    // Nothing was reserved by the refusals: key 1's notes fund again (its one note was reserved above,
    // key 0's are untouched).
    const again = await post('/wallet/fund', fundBody());
    assert.equal(again.status, 200, again.text);
  });

  test('POST /wallet/transactions/transfer-funds: 201 {hash} as text/plain, the transaction pending', async () => {
    const r = await post('/wallet/transactions/transfer-funds', {
      change_public_key: k0.publicKey,
      funding_public_keys: [k0.publicKey],
      recipient_public_key: k1.publicKey,
      amount: 1,
    });
    assert.equal(r.status, 201, r.text);
    const { hash } = JSON.parse(r.text) as { hash: string };
    assert.match(hash, /^[0-9a-f]{64}$/);
    const st = await post('/mantle/status', [hash]);
    assert.ok(['["Pending"]', '["Unknown"]'].includes(st.text), st.text);
  });

  test('client helpers: fund and sign an empty builder, transfer, wait for inclusion', async () => {
    const node = createClient({ baseUrl: tn.base });
    const bal = await node.walletBalance({ params: { public_key: k0.publicKey } });
    assert.ok(bal.balance > 0n);
    const { tx } = await fundAndSign(node, {
      txBuilder: EMPTY_BUILDER,
      changePk: k0.publicKey,
      fundingPks: [k0.publicKey],
      maxTxFee: 1_000_000n,
      signOps: async () => [],
    });
    assert.equal((tx.mantle_tx as { ops: unknown[] }).ops.length, tx.ops_proofs.length);
    const hash = await transfer(node, { from: k0.publicKey, to: k1.publicKey, amount: 2n });
    const included = await waitForInclusion(node, hash, { timeoutMs: 20_000, intervalMs: 100 });
    assert.equal(included.mantle_tx.hash, hash);
    const [status] = await node.mantleStatus({ body: [hash] });
    assert.equal(status, 'Unknown', 'no longer pending once included');
    await assert.rejects(
      waitForInclusion(node, 'ab'.repeat(32), { timeoutMs: 300, intervalMs: 100 }),
      /not included/,
    );
  });
});
