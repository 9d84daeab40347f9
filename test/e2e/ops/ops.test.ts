/**
 * The transaction-building endpoints on a leading fast node (the devnet keys, 100 ms slots, 40-slot
 * epochs): aged notes and vouchers as the reference answers them (JSON as text/plain), the voucher
 * states, the node's current SDP declaration, the refusal of bad input (nothing submitted, nothing
 * changed), and the write flows: a leader claim, SDP declare → activity → withdraw through
 * `/blend/join`, a channel deposit. The write flows need the node's wallet and mempool; a node built
 * without one of them says so (`this node runs no wallet`, `mempool service not available`), and those
 * tests skip themselves.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseJson } from '../../../src/codec/json.ts';
import { VoucherTree } from '../../../src/ledger/trees/voucher-tree.ts';
import { VoucherLeaves } from '../../../src/ops/voucher-leaves.ts';
import { startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';

let tn: TestNode;

interface Reply {
  status: number;
  type: string | null;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies checked field by field
  json: any;
}

async function call(
  method: string,
  path: string,
  body?: unknown,
  raw?: { text: string; type: string },
): Promise<Reply> {
  const headers: Record<string, string> = {};
  let payload: string | undefined;
  if (raw) {
    headers['content-type'] = raw.type;
    payload = raw.text;
  } else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(`${tn.base}${path}`, {
    method,
    headers,
    ...(payload !== undefined ? { body: payload } : {}),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : parseJson(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, type: res.headers.get('content-type'), text, json };
}

/** The answers of a node built without a wallet or without a mempool service. */
const NO_WALLET = /^(this node runs no wallet|mempool service not available)/;

/** A well-formed Blend activity proof (its proof of quota is not verified yet, docs/fidelity.md). */
const PROOF = {
  epoch: 0,
  signing_key: '5866666666666666666666666666666666666666666666666666666666666666',
  proof_of_quota: {
    key_nullifier: '00'.repeat(32),
    proof: { pi_a: Array(32).fill(0), pi_b: Array(64).fill(0), pi_c: Array(32).fill(0) },
  },
  proof_of_selection: { selection_randomness: '00'.repeat(32) },
};
const noWallet = (r: Reply) => r.status === 500 && NO_WALLET.test(String(r.json?.message));

before(async () => {
  tn = await startFastNode();
  await waitUntil(() => tn.node.chain.consensusState === 'Online', 10_000, 'Online');
});
after(() => tn.stop());

describe('leader rewards', () => {
  test('GET /leader/aged-notes: the wallet notes of the aged snapshot, JSON as text/plain', async () => {
    const r = await call('GET', '/leader/aged-notes');
    assert.equal(r.status, 200);
    assert.equal(r.type, 'text/plain; charset=utf-8');
    assert.deepEqual(Object.keys(r.json), ['tip', 'notes', 'count', 'total_value']);
    assert.equal(r.json.count, r.json.notes.length);
    assert.ok(r.json.count >= 1, 'the devnet keys hold aged notes');
    const sum = r.json.notes.reduce((a: bigint, n: { value: number | bigint }) => a + BigInt(n.value), 0n);
    assert.equal(BigInt(r.json.total_value), sum);
    for (const n of r.json.notes) assert.deepEqual(Object.keys(n), ['note_id', 'value', 'public_key']);
    const missing = await call('GET', `/leader/aged-notes?tip=${'ee'.repeat(32)}`);
    assert.equal(missing.status, 500);
    const bad = await call('GET', '/leader/aged-notes?tip=zz');
    assert.equal(bad.status, 400);
  });

  test('a produced voucher becomes available once its epoch is over; the endpoints agree', async () => {
    let vouchers: Reply | undefined;
    await waitUntil(
      async () => {
        vouchers = await call('GET', '/x/leader/vouchers');
        return vouchers.json.vouchers.some((v: { status: string }) => v.status === 'available');
      },
      20_000,
      'an available voucher',
      200,
    );
    const all = vouchers!.json;
    assert.equal(vouchers!.type, 'application/json');
    for (const v of all.vouchers) {
      assert.ok(['available', 'reserved', 'not_yet_provable', 'claimed'].includes(v.status));
      assert.match(v.commitment, /^[0-9a-f]{64}$/);
    }
    const claimable = await call('GET', '/leader/claim/vouchers');
    assert.equal(claimable.status, 200);
    assert.equal(claimable.type, 'text/plain; charset=utf-8');
    assert.deepEqual(Object.keys(claimable.json), ['tip', 'vouchers', 'reward_amount', 'total_claimable']);
    assert.ok(claimable.json.vouchers.length >= 1);
    assert.equal(
      BigInt(claimable.json.total_claimable),
      BigInt(claimable.json.reward_amount) * BigInt(claimable.json.vouchers.length),
    );
    const available = new Set(
      all.vouchers
        .filter((v: { status: string }) => v.status === 'available')
        .map((v: { commitment: string }) => v.commitment),
    );
    for (const v of claimable.json.vouchers)
      assert.ok(available.has(v.commitment) || all.tip !== claimable.json.tip);
  });

  test("the leaves rebuilt from the canonical headers give the ledger's voucher snapshot root", () => {
    const leaves = new VoucherLeaves(tn.node.chain);
    leaves.sync();
    const state = tn.node.chain.tip().state;
    assert.ok(state.leader.snapshot.count > 0);
    let tree = VoucherTree.empty();
    for (const cm of leaves.leaves(state.leader.snapshot.count)) tree = tree.append(cm);
    assert.equal(tree.root(), state.leader.snapshot.root);
    assert.equal(leaves.leaves(1e9).length, state.leader.vouchers.count);
  });

  test('POST /leader/claim claims one voucher, which is then reserved and finally claimed', async (t) => {
    const r = await call('POST', '/leader/claim');
    if (noWallet(r)) return t.skip('the node runs no wallet or no mempool');
    assert.equal(r.status, 200, r.text);
    assert.match(r.json.tx_hash, /^[0-9a-f]{64}$/);
    const states = async () =>
      (await call('GET', '/x/leader/vouchers')).json.vouchers as { status: string }[];
    assert.ok((await states()).some((v) => v.status === 'reserved' || v.status === 'claimed'));
    await waitUntil(
      async () => (await states()).some((v) => v.status === 'claimed'),
      20_000,
      'a claimed voucher',
      200,
    );
    const inc = await call('GET', `/cryptarchia/transaction/${r.json.tx_hash}`);
    assert.equal(inc.status, 200);
  });
});

describe('the node current SDP declaration', () => {
  test('set-declaration-id refuses an unknown id and clears with null', async () => {
    const missing = await call('POST', '/sdp/set-declaration-id', 'ee'.repeat(32));
    assert.equal(missing.status, 500);
    assert.deepEqual(Object.keys(missing.json), ['code', 'message']);
    const cleared = await call('POST', '/sdp/set-declaration-id', null);
    assert.equal(cleared.status, 200);
    assert.equal(cleared.text, 'null');
  });

  test('activity without a current declaration fails', async () => {
    await call('POST', '/sdp/set-declaration-id', null);
    const r = await call('POST', '/sdp/activity', { Blend: PROOF });
    assert.equal(r.status, 500);
    assert.equal(r.json.message, 'No declaration_id set. Cannot post activity without declaration.');
  });

  test('bad input is refused before anything is built', async () => {
    const decl = {
      service_type: 'BN',
      locators: ['/ip4/127.0.0.1/udp/3400/quic-v1'],
      provider_id: '5866666666666666666666666666666666666666666666666666666666666666',
      zk_id: '01'.padEnd(64, '0'),
      service_note_id: '02'.padEnd(64, '0'),
    };
    const cases: [string, unknown, number][] = [
      ['/sdp/declaration', { ...decl, locators: [] }, 422],
      ['/sdp/declaration', { ...decl, zk_id: 'ff'.repeat(32) }, 422],
      ['/sdp/declaration', { ...decl, service_type: 'DA' }, 422],
      ['/sdp/declaration', { ...decl, locators: ['not a multiaddr'] }, 422],
      ['/sdp/withdrawal', 'zz', 422],
      ['/sdp/activity', { Blend: {} }, 422],
      ['/blend/join', { locator: '/ip4/127.0.0.1/udp/3400/quic-v1' }, 422],
      [
        '/channel/deposit',
        {
          deposit: { channel_id: '00'.repeat(32), inputs: [], metadata: [] },
          change_public_key: '00'.repeat(32),
          funding_public_keys: [],
          max_tx_fee: 18446744073709551616n,
        },
        422,
      ],
    ];
    for (const [path, body, status] of cases) {
      const text =
        typeof body === 'bigint'
          ? String(body)
          : JSON.stringify(body, (_k, v) => (typeof v === 'bigint' ? `@${v}@` : v)).replace(
              /"@(\d+)@"/g,
              '$1',
            );
      const r = await call('POST', path, undefined, { text, type: 'application/json' });
      assert.equal(r.status, status, `${path} ${text}: ${r.text}`);
      assert.equal(r.type, 'text/plain; charset=utf-8');
    }
    assert.equal(
      (await call('POST', '/sdp/declaration', undefined, { text: '{', type: 'application/json' })).status,
      400,
    );
    assert.equal(
      (await call('POST', '/sdp/declaration', undefined, { text: '{}', type: 'text/plain' })).status,
      415,
    );
    assert.equal(tn.node.chain.tip().state.sdp.declarations.size, 0);
  });
});

describe('write flows', () => {
  test('SDP: join Blend (declare) → activity → withdraw through the API', async (t) => {
    const notes = (await call('GET', '/leader/aged-notes')).json.notes as {
      note_id: string;
      public_key: string;
    }[];
    const join = await call('POST', '/blend/join', {
      locator: '/ip4/127.0.0.1/udp/3400/quic-v1',
      service_note_id: notes[notes.length - 1]!.note_id,
    });
    if (noWallet(join)) return t.skip('the node runs no wallet or no mempool');
    assert.equal(join.status, 200, join.text);
    assert.deepEqual(Object.keys(join.json), ['declaration_id', 'tx_id']);
    const id = join.json.declaration_id as string;
    await waitUntil(
      async () => Object.hasOwn((await call('GET', '/mantle/sdp/declarations')).json, id),
      20_000,
      'the declaration in the ledger',
      200,
    );
    const active = await call('POST', '/sdp/activity', { Blend: PROOF });
    assert.equal(active.status, 200, active.text);
    assert.equal(active.json.declaration_id, id);
    const withdraw = await call('POST', '/sdp/withdrawal', id);
    assert.equal(withdraw.status, 200, withdraw.text);
    assert.equal(withdraw.json.declaration_id, id);
    const after = await call('POST', '/sdp/activity', { Blend: PROOF });
    assert.equal(after.status, 500, 'no current declaration after a withdrawal');
  });

  test('POST /channel/deposit deposits a wallet note into the genesis channel', async (t) => {
    const notes = (await call('GET', '/leader/aged-notes')).json.notes as {
      note_id: string;
      public_key: string;
    }[];
    const note = notes[0]!;
    const r = await call('POST', '/channel/deposit', {
      deposit: { channel_id: '00'.repeat(32), inputs: [note.note_id], metadata: [1, 2, 3] },
      change_public_key: note.public_key,
      funding_public_keys: [note.public_key],
      max_tx_fee: 1_000_000_000,
      tip: '00'.repeat(32),
    });
    if (noWallet(r)) return t.skip('the node runs no wallet or no mempool');
    assert.equal(r.status, 200, r.text);
    assert.match(r.json.hash, /^[0-9a-f]{64}$/);
    await waitUntil(
      async () => (await call('GET', `/cryptarchia/transaction/${r.json.hash}`)).status === 200,
      20_000,
      'the deposit included',
      200,
    );
  });
});
