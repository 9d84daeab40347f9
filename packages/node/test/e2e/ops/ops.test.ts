/**
 * The transaction-building endpoints on a leading fast node (the devnet keys, 100 ms slots, 40-slot
 * epochs): aged notes and vouchers as the reference answers them (JSON as text/plain), the voucher
 * states, the node's current SDP declaration, the refusal of bad input (nothing submitted, nothing
 * changed), and the write flows proven in the ledger: a leader claim included and paid, SDP declare →
 * activity → withdraw through `/blend/join` and `/sdp/*` (the activity accepted by the ledger's Blend
 * reward checks), a channel deposit included. Inclusion is read from the chain (`GET
 * /cryptarchia/transaction/{hash}` also serves pending transactions). The node under test runs its
 * wallet and mempool, so the write flows must succeed: an answer that either is missing is a failure.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Json, parseJson, stringifyJson } from '@logos-ts/shared/json';
import { bytesToHex, hexToBytes } from '../../../src/codec/hex.ts';
import { keyNullifierOf } from '../../../src/crypto/blend/selection.ts';
import { ed25519PublicKey } from '../../../src/crypto/ed25519.ts';
import { frFromBytes } from '../../../src/crypto/field.ts';
import { LedgerError } from '../../../src/ledger/errors.ts';
import { epochOf, epochSchedule } from '../../../src/ledger/parameters.ts';
import { applyActivity, type BlendRewards, blendActivityChecks } from '../../../src/ledger/sdp-rewards.ts';
import { VoucherTree } from '../../../src/ledger/trees/voucher-tree.ts';
import { type BlendActivityProof, blendActivityProof } from '../../../src/mantle/ops.ts';
import type { UserConfig } from '../../../src/node/config.ts';
import { devnetConfig, fundedDevnetKeys } from '../../../src/node/devnet.ts';
import { VoucherLeaves } from '../../../src/ops/voucher-leaves.ts';
import { INSECURE_TEST_CHECKS, insecureTestPoqProofOf } from '../../../src/zk/insecure-test-proofs.ts';
import { FAST } from '../../mocks/fast-deployment.ts';
import { startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';

let tn: TestNode;

/** The funded devnet keys; the first one funds leader claims and SDP messages and receives the rewards. */
const KEYS = fundedDevnetKeys().map((k) => k.publicKey);
const FUNDING = KEYS[0]!;

/**
 * A second Blend provider's Ed25519 key, added to the node's key store: the Blend rewards accept
 * activity only from a network of at least `minimum_network_size` (2) providers, so the SDP flow
 * declares a second provider besides the node itself (`/blend/join`).
 */
const SECOND_PROVIDER_SECRET = new Uint8Array(32).fill(7);
const SECOND_PROVIDER = bytesToHex(ed25519PublicKey(SECOND_PROVIDER_SECRET));

const SCHEDULE = epochSchedule(FAST.ledger.consensus);

/** The epoch of a stored block. */
const epochOfBlock = (id: string) => epochOf(tn.node.chain.stateOf(hexToBytes(id))!.slot, SCHEDULE);

function nodeConfig(): UserConfig {
  const c = devnetConfig();
  const keys = { ...c.kms.backend.keys };
  keys[SECOND_PROVIDER] = { kind: 'Ed25519', secret: bytesToHex(SECOND_PROVIDER_SECRET) };
  return { ...c, kms: { backend: { keys } } };
}

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
    payload = stringifyJson(body);
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

/** A well-formed Blend activity proof (for the answers that come before any check of it). */
const PROOF = {
  epoch: 0,
  signing_key: '5866666666666666666666666666666666666666666666666666666666666666',
  proof_of_quota: {
    key_nullifier: '00'.repeat(32),
    proof: { pi_a: Array(32).fill(0), pi_b: Array(64).fill(0), pi_c: Array(32).fill(0) },
  },
  proof_of_selection: { selection_randomness: '00'.repeat(32) },
};

/** A key's balance and its unspent notes (channel and locked notes excluded), as the wallet reports them. */
async function balance(pk: string): Promise<{ balance: bigint; notes: Map<string, bigint> }> {
  const r = await call('GET', `/wallet/${pk}/balance`);
  assert.equal(r.status, 200, r.text);
  const notes = new Map<string, bigint>();
  for (const [id, v] of Object.entries(r.json.notes)) notes.set(id, BigInt(v as number | bigint));
  return { balance: BigInt(r.json.balance), notes };
}

async function mempoolStatus(hash: string): Promise<string> {
  const r = await call('POST', '/mantle/status', [hash]);
  assert.equal(r.status, 200, r.text);
  return r.json[0];
}

interface Inclusion {
  /** The canonical block that holds the transaction. */
  block: string;
  // biome-ignore lint/suspicious/noExplicitAny: the signed transaction's JSON
  tx: any;
  /** The block's ledger events of this transaction (their `Tx.payload`). */
  // biome-ignore lint/suspicious/noExplicitAny: event payloads checked field by field
  events: any[];
}

/** Waits until a canonical block includes the transaction; its JSON and its ledger events. */
async function included(hash: string, ms = 20_000): Promise<Inclusion> {
  let block: Uint8Array | undefined;
  await waitUntil(
    () => {
      block = tn.node.chain.transactionLocation(hexToBytes(hash))?.block;
      return block !== undefined;
    },
    ms,
    `transaction ${hash} in a canonical block`,
    50,
  );
  const id = bytesToHex(block!);
  const tx = await call('GET', `/cryptarchia/transaction/${hash}`);
  assert.equal(tx.status, 200, tx.text);
  const ev = await call('GET', `/cryptarchia/blocks/${id}/events`);
  assert.equal(ev.status, 200, ev.text);
  const events = (ev.json as { Tx?: { tx_hash: string; payload: unknown } }[])
    .filter((e) => e.Tx?.tx_hash === hash)
    .map((e) => e.Tx!.payload);
  return { block: id, tx: tx.json, events };
}

/**
 * What a transaction's Transfer ops take from `pk`'s notes and give back to `pk`, and its fee (the
 * Transfer inputs less all Transfer outputs; `values` are the input notes' values).
 */
function transferOf(tx: Inclusion['tx'], values: Map<string, bigint>, pk: string) {
  let spent = 0n;
  let back = 0n;
  let out = 0n;
  for (const op of tx.mantle_tx.ops as { opcode: number; payload: Json }[]) {
    if (op.opcode !== 0) continue;
    const p = op.payload as { inputs: string[]; outputs: { value: number | bigint; pk: string }[] };
    for (const id of p.inputs) {
      const v = values.get(id);
      assert.ok(v !== undefined, `input ${id} is a note of ${pk}`);
      spent += v;
    }
    for (const o of p.outputs) {
      out += BigInt(o.value);
      if (o.pk === pk) back += BigInt(o.value);
    }
  }
  return { spent, back, fee: spent - out };
}

before(async () => {
  tn = await startFastNode({ config: nodeConfig() });
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

  test('POST /leader/claim: included, the funding key paid the reward less the fee, the voucher claimed once', async () => {
    let claimable: { vouchers: { commitment: string; nullifier: string }[] } | undefined;
    await waitUntil(
      async () => {
        claimable = (await call('GET', '/leader/claim/vouchers')).json;
        return claimable!.vouchers.length >= 1;
      },
      20_000,
      'a claimable voucher',
      100,
    );
    // No block until the claim is seen pending (a fast block could take it first).
    tn.node.leader.pause();
    let before: Awaited<ReturnType<typeof balance>>;
    let hash: string;
    try {
      before = await balance(FUNDING);
      const r = await call('POST', '/leader/claim');
      assert.equal(r.status, 200, r.text);
      hash = r.json.tx_hash as string;
      assert.match(hash, /^[0-9a-f]{64}$/);
      assert.equal(await mempoolStatus(hash), 'Pending', 'pending until a block takes it');
    } finally {
      tn.node.leader.resume();
    }
    const inc = await included(hash);
    assert.equal(await mempoolStatus(hash), 'Unknown', 'an included transaction is no longer pending');

    // The block's events hold the claim: the reward note goes to the funding key (F: `pk: funding_pk`).
    assert.equal(inc.events.length, 1, JSON.stringify(inc.events));
    const claimed = inc.events[0].LeaderRewardClaimed;
    assert.ok(claimed, 'a LeaderRewardClaimed payload');
    assert.equal(claimed.utxo.note.pk, FUNDING);
    const reward = BigInt(claimed.utxo.note.value);
    assert.ok(reward > 0n, `a positive reward: ${reward}`);
    const voucher = claimable!.vouchers.find((v) => v.nullifier === claimed.voucher_nullifier);
    assert.ok(voucher, 'the claimed voucher was listed as claimable');

    // The fee is funded from the funding key, the change back to it: its balance grows by reward − fee.
    const { spent, back, fee } = transferOf(inc.tx, before.notes, FUNDING);
    assert.ok(fee > 0n, `a positive fee: ${fee}`);
    assert.equal(back, spent - fee, 'all the change goes back to the funding key');
    await waitUntil(
      async () => (await balance(FUNDING)).balance === before.balance + reward - fee,
      5_000,
      `the funding key's balance to grow by ${reward} - ${fee}`,
      50,
    );
    const states = (await call('GET', '/x/leader/vouchers')).json.vouchers as {
      commitment: string;
      status: string;
    }[];
    assert.equal(states.find((v) => v.commitment === voucher.commitment)?.status, 'claimed');

    // A second claim never takes the same voucher: another one, or none is left.
    const again = await call('POST', '/leader/claim');
    if (again.status === 500) {
      assert.equal(again.json.message, 'Wallet API error: No claimable voucher found');
      return;
    }
    assert.equal(again.status, 200, again.text);
    const second = (await included(again.json.tx_hash)).events[0].LeaderRewardClaimed;
    assert.ok(second);
    assert.notEqual(second.voucher_nullifier, claimed.voucher_nullifier);
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
  test('POST /channel/deposit: included, the note leaves the balance, the block events hold the Deposit', async () => {
    const pk = KEYS[1]!;
    const before = await balance(pk);
    const [noteId, value] = [...before.notes][0]!;
    const r = await call('POST', '/channel/deposit', {
      deposit: { channel_id: '00'.repeat(32), inputs: [noteId], metadata: [1, 2, 3] },
      change_public_key: pk,
      funding_public_keys: [pk],
      max_tx_fee: 1_000_000_000,
    });
    assert.equal(r.status, 200, r.text);
    const inc = await included(r.json.hash);
    assert.equal(inc.events.length, 1, JSON.stringify(inc.events));
    const dep = inc.events[0].Deposit;
    assert.ok(dep, 'a Deposit payload');
    assert.equal(dep.channel_id, '00'.repeat(32));
    assert.equal(BigInt(dep.amount), value);
    assert.deepEqual(dep.metadata, [1, 2, 3]);
    assert.equal(dep.notes.length, 1);
    assert.deepEqual([BigInt(dep.notes[0].value), dep.notes[0].pk], [value, pk]);
    // The deposited note stays the key's, but in the channel: the wallet no longer counts it; the
    // fee is funded from the key's other notes.
    const { spent, back, fee } = transferOf(inc.tx, before.notes, pk);
    assert.ok(fee > 0n, `a positive fee: ${fee}`);
    const after = await balance(pk);
    assert.ok(!after.notes.has(noteId));
    assert.equal(after.balance, before.balance - value - spent + back);
    for (const n of dep.notes) {
      assert.ok(!after.notes.has(n.note_id), 'a channel note is not in the balance');
      const rec = tn.node.chain.tip().state.notes.get(frFromBytes(hexToBytes(n.note_id)));
      assert.equal(rec?.channel, '00'.repeat(32), 'the note is held in the channel');
    }
    assert.equal((await call('GET', `/channel/${'00'.repeat(32)}`)).status, 200);
  });

  test('SDP: declare (/blend/join) → an activity the ledger accepts → withdraw', async () => {
    const serviceNote = async (pk: string) => [...(await balance(pk)).notes.keys()][0]!;
    // A second provider first (the rewards need two), then the node itself, which becomes current.
    const other = await call('POST', '/sdp/declaration', {
      service_type: 'BN',
      locators: ['/ip4/127.0.0.1/udp/3401/quic-v1'],
      provider_id: SECOND_PROVIDER,
      zk_id: KEYS[1],
      service_note_id: await serviceNote(KEYS[3]!),
    });
    assert.equal(other.status, 200, other.text);
    const join = await call('POST', '/blend/join', {
      locator: '/ip4/127.0.0.1/udp/3400/quic-v1',
      service_note_id: await serviceNote(KEYS[2]!),
    });
    assert.equal(join.status, 200, join.text);
    assert.deepEqual(Object.keys(join.json), ['declaration_id', 'tx_id']);
    const id = join.json.declaration_id as string;
    await included(other.json.tx_id);
    await included(join.json.tx_id);
    const declarations = async () => (await call('GET', '/mantle/sdp/declarations')).json;
    const declared = (await declarations())[id];
    assert.ok(declared, 'the declaration is in the ledger');
    assert.ok(Object.hasOwn(await declarations(), other.json.declaration_id));
    assert.deepEqual([declared.nonce, declared.withdraw_at], [0, null]);
    const provider = hexToBytes(declared.provider_id);

    // Activity for epoch E is accepted during E + 1 from the providers of E's active set; a declaration
    // of epoch D is in the active sets from D + 2, so the target includes it from epoch D + 3 on.
    // Submitted early in an epoch so that a block of the same epoch includes it.
    let rewards: BlendRewards | undefined;
    await waitUntil(
      () => {
        const s = tn.node.chain.tip().state;
        rewards = s.sdp.rewards;
        const inTarget = rewards.target?.providers.some(
          (p) => bytesToHex(p.provider_id) === declared.provider_id,
        );
        return inTarget === true && s.slot % SCHEDULE.epoch_length < SCHEDULE.epoch_length / 2n;
      },
      30_000,
      'the declaration in the target epoch of the Blend rewards',
      50,
    );
    const proof = activityProof(rewards!, provider);
    const active = await call('POST', '/sdp/activity', { Blend: blendActivityProof.toJson(proof) });
    assert.equal(active.status, 200, active.text);
    assert.equal(active.json.declaration_id, id);
    const act = await included(active.json.tx_id, 5_000);
    const accepted = tn.node.chain.stateOf(hexToBytes(act.block))!;
    assert.ok(
      accepted.sdp.rewards.target?.submitted.some((s) => bytesToHex(s.provider_id) === declared.provider_id),
    );
    const refreshed = (await declarations())[id];
    assert.equal(refreshed.nonce, 1);
    assert.equal(refreshed.active, epochOfBlock(act.block));
    assert.ok(refreshed.active > declared.active, 'active advances to the epoch of the activity');

    const withdraw = await call('POST', '/sdp/withdrawal', id);
    assert.equal(withdraw.status, 200, withdraw.text);
    assert.equal(withdraw.json.declaration_id, id);
    const wd = await included(withdraw.json.tx_id);
    const withdrawn = (await declarations())[id];
    assert.deepEqual([withdrawn.nonce, withdrawn.withdraw_at], [2, epochOfBlock(wd.block) + 2]);
    const after = await call('POST', '/sdp/activity', { Blend: PROOF });
    assert.equal(after.status, 500, 'no current declaration after a withdrawal');
  });
});

/**
 * An activity proof the ledger accepts for `provider` now. This node runs no Blend service, so the
 * proof is made here, the way a Blend node's token would have to be: its proof of selection designates
 * the provider's index in the target epoch's membership and its key nullifier is the one that
 * selection randomness commits to; among such randomness values the first whose token lies within the
 * activity threshold of the current epoch's randomness is taken. Its proof of quota is the test
 * backend's proof of the target epoch's inputs with that key nullifier (the node runs the insecure test
 * proofs). The ledger's own check (`applyActivity`) decides.
 */
function activityProof(rewards: BlendRewards, provider: Uint8Array): BlendActivityProof {
  const target = rewards.target!;
  for (let r = 1n; r < 100_000n; r++) {
    const proof: BlendActivityProof = {
      epoch: target.epoch,
      signing_key: provider,
      proof_of_quota: {
        key_nullifier: keyNullifierOf(r),
        proof: insecureTestPoqProofOf({ ...target.poq, signing_key: provider }, keyNullifierOf(r)),
      },
      proof_of_selection: { selection_randomness: r },
    };
    try {
      applyActivity(rewards, provider, proof, 0, blendActivityChecks(INSECURE_TEST_CHECKS));
      return proof;
    } catch (e) {
      if (!(e instanceof LedgerError)) throw e;
    }
  }
  throw new Error('no selection randomness gives an accepted activity proof');
}
