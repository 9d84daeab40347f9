/**
 * Scenarios after the reference's transaction, fee and mempool features (`tests/cucumber_tests/features/
 * {transactions,fees,mempool}.feature`), driven through the HTTP API alone on one devnet node (100 ms
 * slots, the insecure test proofs, the wallet holding the four funded devnet keys, each with five notes
 * of 1e8): a transfer between two keys and both balances after inclusion, the change note, the fee
 * debited exactly, the mandatory fee paid exactly and a priority reserve on top of it, insufficient funds,
 * concurrent transfers never funded from the same note, a transaction resubmitted after its inclusion
 * never included twice, a duplicate, a broken proof, a transaction underfunded by 1 never included.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bytesToHex, hexToBytes } from '../../../src/codec/hex.ts';
import { parseJson } from '../../../src/codec/json.ts';
import { gasContextOf, minimumTotalGasCost } from '../../../src/ledger/gas.ts';
import { mantleTx, txHash } from '../../../src/mantle/tx.ts';
import { fundedDevnetKeys } from '../../../src/node/devnet.ts';
import { startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';

type Json = ReturnType<typeof parseJson>;
interface Balance {
  tip: string;
  balance: bigint;
  notes: Record<string, bigint>;
  address: string;
}

let tn: TestNode;
const keys = fundedDevnetKeys().map((k) => k.publicKey);

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`${tn.base}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, text: await res.text() };
}

/** The key's balance as the node reports it (u64 exact). */
async function balance(pk: string): Promise<Balance> {
  const r = await call('GET', `/wallet/${pk}/balance`);
  assert.equal(r.status, 200, `balance of ${pk}: ${r.status} ${r.text}`);
  const j = parseJson(r.text) as {
    tip: string;
    balance: bigint | number;
    notes: Record<string, bigint | number>;
    address: string;
  };
  const notes: Record<string, bigint> = {};
  for (const [id, v] of Object.entries(j.notes)) notes[id] = BigInt(v);
  return { tip: j.tip, balance: BigInt(j.balance), notes, address: j.address };
}

async function transfer(
  from: string,
  to: string,
  amount: number | bigint,
): Promise<{ status: number; text: string }> {
  return call('POST', '/wallet/transactions/transfer-funds', {
    recipient_public_key: to,
    amount: Number(amount),
    change_public_key: from,
    funding_public_keys: [from],
  });
}

/** The transaction's JSON once a canonical block includes it (`GET /cryptarchia/transaction/{hash}`
 * also serves pending transactions, so inclusion is read from the chain). */
async function included(hash: string, ms = 30_000): Promise<Json> {
  let tx: Json | undefined;
  await waitUntil(
    async () => {
      if (!tn.node.chain.transactionLocation(hexToBytes(hash))) return false;
      const r = await call('GET', `/cryptarchia/transaction/${hash}`);
      if (r.status === 200) tx = parseJson(r.text);
      return tx !== undefined;
    },
    ms,
    `transaction ${hash} to be included`,
    100,
  );
  return tx!;
}

/** The hash of a `RawMantleTx` JSON (`/wallet/fund`'s `funded_tx`). */
function hashOf(rawTx: unknown): string {
  return bytesToHex(txHash(mantleTx.fromJson(rawTx as Json)));
}

async function status(hash: string): Promise<string> {
  const r = await call('POST', '/mantle/status', [hash]);
  assert.equal(r.status, 200, r.text);
  return (JSON.parse(r.text) as string[])[0]!;
}

interface TransferPayload {
  inputs: string[];
  outputs: { value: bigint | number; pk: string }[];
}

/** The Transfer ops of a signed transaction's JSON. */
function transfers(tx: Json): TransferPayload[] {
  const ops = (tx as unknown as { mantle_tx: { ops: { opcode: number; payload: TransferPayload }[] } })
    .mantle_tx.ops;
  return ops.filter((o) => o.opcode === 0).map((o) => o.payload);
}

before(async () => {
  tn = await startFastNode();
  await waitUntil(() => tn.node.chain.consensusState === 'Online', 20_000, 'Online');
  await waitUntil(() => tn.node.chain.tip().height >= 2, 20_000, 'height 2');
});
after(() => tn?.stop());

describe('transactions through the wallet', () => {
  test('a transfer between two keys is pending, then included, and both balances change by the amount and the fee', async () => {
    const [a, b] = [keys[0]!, keys[1]!];
    const [a0, b0] = [await balance(a), await balance(b)];
    const r = await transfer(a, b, 500);
    assert.equal(r.status, 201, r.text);
    const { hash } = JSON.parse(r.text) as { hash: string };
    assert.match(hash, /^[0-9a-f]{64}$/);
    const st = await status(hash);
    assert.ok(st === 'Pending' || st === 'Unknown', st);
    const tx = await included(hash);
    const [t] = transfers(tx);
    assert.ok(t, 'one Transfer');
    // Largest notes first: every devnet note is 1e8, so one input covers 500 and the fee.
    assert.equal(t.inputs.length, 1);
    const inputValue = t.inputs.map((id) => a0.notes[id]).reduce((s, v) => s! + v!, 0n)!;
    assert.ok(inputValue > 0n, 'the input was one of the sender notes');
    const outs = t.outputs.map((o) => ({ value: BigInt(o.value), pk: o.pk }));
    assert.deepEqual(outs[0], { value: 500n, pk: b }, 'the recipient output first');
    assert.equal(outs.length, 2, 'a change note');
    assert.equal(outs[1]!.pk, a, 'the change goes to the change key');
    const fee = inputValue - outs.reduce((s, o) => s + o.value, 0n);
    assert.ok(fee > 0n, `the fee is positive: ${fee}`);

    await waitUntil(
      async () => (await balance(b)).balance === b0.balance + 500n,
      10_000,
      'recipient credited',
      100,
    );
    const a1 = await balance(a);
    assert.equal(a1.balance, a0.balance - 500n - fee, 'the sender is debited the amount and exactly the fee');
    assert.ok(Object.values(a1.notes).includes(outs[1]!.value), 'the change note is among the sender notes');
    assert.equal(await status(hash), 'Unknown', 'an included transaction is no longer pending');
  });

  test('concurrent transfers from one key are funded from different notes and all included', async () => {
    const [a, b] = [keys[2]!, keys[3]!];
    const b0 = await balance(b);
    const rs = await Promise.all([transfer(a, b, 501), transfer(a, b, 502)]);
    for (const r of rs) assert.equal(r.status, 201, r.text);
    const txs = await Promise.all(rs.map((r) => included((JSON.parse(r.text) as { hash: string }).hash)));
    const inputs = txs.flatMap((tx) => transfers(tx).flatMap((t) => t.inputs));
    assert.equal(new Set(inputs).size, inputs.length, 'no note funds two transfers');
    await waitUntil(
      async () => (await balance(b)).balance === b0.balance + 1003n,
      10_000,
      'both transfers credited',
      100,
    );
  });

  test('a transfer above the available funds fails with the reference text and reserves nothing', async () => {
    const a = keys[3]!;
    const a0 = await balance(a);
    const r = await transfer(a, keys[0]!, a0.balance * 10n);
    assert.equal(r.status, 500, r.text);
    assert.match(r.text, /Wallet does not have enough funds, available=\d+/);
    // Nothing reserved: a transfer using the largest note still works.
    const ok = await transfer(a, keys[0]!, 1);
    assert.equal(ok.status, 201, ok.text);
    await included((JSON.parse(ok.text) as { hash: string }).hash);
  });

  test('a priority fee reserve adds ceil(fee × percent / 100) to the mandatory fee', async () => {
    const a = keys[1]!;
    const tip = (await balance(a)).tip;
    const fund = async (percent: number) => {
      const r = await call('POST', '/wallet/fund', {
        tip,
        tx_builder: {
          mantle_tx: { ops: [] },
          ledger_inputs: [],
          pending_transfer: { inputs: [], outputs: [{ value: 7, pk: keys[0] }] },
          channel_multi_sig_proofs: {},
        },
        change_public_key: a,
        funding_public_keys: [a],
        max_tx_fee: 1_000_000_000,
        priority_fee_percent: percent,
      });
      assert.equal(r.status, 200, r.text);
      const j = parseJson(r.text) as unknown as {
        tip: string;
        funded_tx: { ops: { opcode: number; payload: TransferPayload }[] };
      };
      assert.equal(j.tip, tip, 'funded against the tip asked for');
      const t = j.funded_tx.ops.at(-1)!;
      assert.equal(t.opcode, 0, 'the funding Transfer is the last op');
      const bal = await balance(a);
      const inValue = t.payload.inputs.map((id) => bal.notes[id] ?? 0n).reduce((s, v) => s + v, 0n);
      const fee = inValue - t.payload.outputs.reduce((s, o) => s + BigInt(o.value), 0n);
      return { fee, tx: mantleTx.fromJson(j.funded_tx as unknown as Json) };
    };
    const exact = await fund(0);
    const reserve = await fund(50);
    // The mandatory fee of the funded transaction at that block (F `minimum_total_gas_cost`).
    const mandatory = minimumTotalGasCost(exact.tx, gasContextOf(tn.node.chain.stateOf(hexToBytes(tip))!));
    assert.ok(mandatory > 0n);
    assert.equal(exact.fee, mandatory, 'priority 0 pays exactly the mandatory fee');
    assert.equal(reserve.fee, mandatory + (mandatory * 50n + 99n) / 100n);
  });

  test('a transaction submitted again after its inclusion is never included twice', async () => {
    const [a, b] = [keys[0]!, keys[2]!];
    const r = await transfer(a, b, 3);
    assert.equal(r.status, 201, r.text);
    const { hash } = JSON.parse(r.text) as { hash: string };
    const tx = await included(hash);
    const b1 = await balance(b);
    const again = await call('POST', '/mempool/add/tx', tx);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.text, 'null');
    // Its inputs are spent: a block builder drops it; it never applies a second time.
    await waitUntil(
      async () => (await status(hash)) === 'Unknown',
      10_000,
      'the resubmitted tx to leave the pool',
      100,
    );
    const h = tn.node.chain.tip().height;
    await waitUntil(() => tn.node.chain.tip().height >= h + 3, 10_000, 'three more blocks', 100);
    assert.equal((await balance(b)).balance, b1.balance, 'the recipient is not credited twice');
  });

  test('a duplicate submission answers 200 null and the transaction is pending once', async () => {
    const [a, b] = [keys[1]!, keys[3]!];
    const funded = await call('POST', '/wallet/fund', {
      tx_builder: {
        mantle_tx: { ops: [] },
        ledger_inputs: [],
        pending_transfer: { inputs: [], outputs: [{ value: 11, pk: b }] },
        channel_multi_sig_proofs: {},
      },
      change_public_key: a,
      funding_public_keys: [a],
      max_tx_fee: 1_000_000_000,
      // The execution gas price moves with every block: a reserve keeps the transaction funded if a
      // block lands between funding and inclusion (the exact fee is the priority-fee test's subject).
      priority_fee_percent: 100,
    });
    assert.equal(funded.status, 200, funded.text);
    const j = JSON.parse(funded.text) as { funded_tx: unknown; transfer_proof: unknown };
    const signed = { mantle_tx: j.funded_tx, ops_proofs: [j.transfer_proof] };
    const [r1, r2] = [
      await call('POST', '/mempool/add/tx', signed),
      await call('POST', '/mempool/add/tx', signed),
    ];
    assert.deepEqual([r1.status, r1.text, r2.status, r2.text], [200, 'null', 200, 'null']);
    const hash = hashOf(j.funded_tx);
    // A block may include it between the submission and these reads (slots are short here): then it is
    // no longer pending, and must be on chain.
    const st = await status(hash);
    const pending = JSON.parse((await call('GET', '/mempool/view')).text) as string[];
    const copies = pending.filter((h) => h === hash).length;
    const onChain = tn.node.chain.transactionLocation(hexToBytes(hash)) !== undefined;
    assert.ok(copies === 1 || (copies === 0 && onChain), `pending once (${copies} copies)`);
    assert.ok(st === 'Pending' || onChain, `status ${st}`);
    await included(hash);
  });

  test('a transaction with a broken proof is refused with a plain-text 422 and not pending', async () => {
    const a = keys[2]!;
    const funded = await call('POST', '/wallet/fund', {
      tx_builder: {
        mantle_tx: { ops: [] },
        ledger_inputs: [],
        pending_transfer: { inputs: [], outputs: [{ value: 13, pk: a }] },
        channel_multi_sig_proofs: {},
      },
      change_public_key: a,
      funding_public_keys: [a],
      max_tx_fee: 1_000_000_000,
    });
    assert.equal(funded.status, 200, funded.text);
    const j = JSON.parse(funded.text) as { funded_tx: unknown; transfer_proof: { ZkSig: { pi_a: string } } };
    const pi_a = j.transfer_proof.ZkSig.pi_a;
    const bad = { ZkSig: { ...j.transfer_proof.ZkSig, pi_a: (pi_a[0] === '0' ? '1' : '0') + pi_a.slice(1) } };
    const before = JSON.parse((await call('GET', '/mantle/metrics')).text) as { pending_items: number };
    const r = await call('POST', '/mempool/add/tx', { mantle_tx: j.funded_tx, ops_proofs: [bad] });
    assert.equal(r.status, 422, r.text);
    assert.ok(!r.text.startsWith('{'), `a plain-text body: ${r.text}`);
    assert.equal(await status(hashOf(j.funded_tx)), 'Unknown');
    const after = JSON.parse((await call('GET', '/mantle/metrics')).text) as { pending_items: number };
    assert.ok(after.pending_items <= before.pending_items, 'nothing added');
  });

  test('a transaction underfunded by 1 is admitted, never included, leaves the pool, and the balance is untouched', async () => {
    const a = keys[3]!;
    const funded = await call('POST', '/wallet/fund', {
      tx_builder: {
        mantle_tx: { ops: [] },
        ledger_inputs: [],
        pending_transfer: { inputs: [], outputs: [{ value: 5, pk: keys[1] }] },
        channel_multi_sig_proofs: {},
      },
      change_public_key: a,
      funding_public_keys: [a],
      max_tx_fee: 1_000_000_000,
    });
    assert.equal(funded.status, 200, funded.text);
    const j = parseJson(funded.text) as unknown as {
      funded_tx: { ops: { opcode: number; payload: TransferPayload }[] };
    };
    // One more token to the change: the fee falls 1 below the mandatory minimum.
    const t = j.funded_tx.ops.at(-1)!.payload;
    const change = t.outputs.at(-1)!;
    change.value = BigInt(change.value) + 1n;
    const raw = mantleTx.fromJson(j.funded_tx as unknown as Json);
    const hash = bytesToHex(txHash(raw));
    const sig = await call('POST', '/wallet/sign/zk', { tx_hash: hash, pks: [a] });
    assert.equal(sig.status, 200, sig.text);
    const proof = (JSON.parse(sig.text) as { sig: unknown }).sig;
    const before = await balance(a);
    const r = await call('POST', '/mempool/add/tx', {
      mantle_tx: mantleTx.toJson(raw),
      ops_proofs: [{ ZkSig: proof }],
    });
    assert.deepEqual([r.status, r.text], [200, 'null'], 'no ledger check on admission, as the reference');
    await waitUntil(
      async () => (await status(hash)) === 'Unknown',
      10_000,
      'the underfunded tx to leave the pool',
      100,
    );
    const h = tn.node.chain.tip().height;
    await waitUntil(() => tn.node.chain.tip().height >= h + 3, 10_000, 'three more blocks', 100);
    assert.equal(tn.node.chain.transactionLocation(hexToBytes(hash)), undefined, 'never included');
    assert.equal((await balance(a)).balance, before.balance, 'the balance is untouched');
  });
});
