import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { applyBlock, checkTx } from '../../../src/ledger/apply.ts';
import { LedgerError } from '../../../src/ledger/errors.ts';
import { genesisParameter } from '../../../src/ledger/genesis.ts';
import { applyBlockVerified } from '../../../src/ledger/verified.ts';
import { Opcode } from '../../../src/mantle/ops.ts';
import { txHash } from '../../../src/mantle/tx.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';
import {
  CTX,
  DEVNET,
  genesisNotes,
  KEYS,
  mandatoryFee,
  newKey,
  signTx,
  TestChain,
  transfer,
} from '../../mocks/ledger.ts';

function rejects(fn: () => unknown, code: string) {
  assert.throws(fn, (e: unknown) => e instanceof LedgerError && e.ledgerCode === code, `expected ${code}`);
}

describe('genesis', () => {
  test('the devnet genesis mints every note and reads the chain parameters from the inscription', () => {
    const c = new TestChain();
    const g = c.genesis;
    assert.equal(g.state.notes.size, 20);
    assert.equal(g.state.utxos.size, 20);
    assert.equal(g.parameter.chain_id, 'logos-devnet');
    assert.equal(g.parameter.genesis_time, 1_700_000_000);
    assert.equal(g.state.epoch_state.total_stake, 20n * 100_000_000n);
    assert.equal(g.state.epoch_state.epoch, 0);
    assert.equal(g.state.next_epoch_state.epoch, 1);
    assert.equal(g.state.next_epoch_state.utxos.root(), g.state.utxos.root());
    assert.equal(g.state.gas.execution_base_gas_price, 1n);
    assert.equal(g.state.gas.storage_gas_price, 1n);
    assert.equal(g.state.nonce, DEVNET.genesis.epoch_nonce);
    // Channel 0 exists from genesis, created by the inscription.
    assert.ok(g.state.channels.has('00'.repeat(32)));
    assert.equal(g.block.header.slot, 0n);
    assert.deepEqual(genesisParameter(g.block.transactions[0]!), g.parameter);
  });

  test('genesis is deterministic', () => {
    assert.equal(bytesToHex(new TestChain().genesis.id), bytesToHex(new TestChain().genesis.id));
  });

  test('a malformed genesis transaction is refused', () => {
    const tx = new TestChain().genesis.block.transactions[0]!;
    const swapped = { ...tx, mantle_tx: { ops: [tx.mantle_tx.ops[1]!, tx.mantle_tx.ops[0]!] } };
    rejects(() => genesisParameter(swapped), 'InvalidGenesis');
  });
});

describe('transfer', () => {
  test('a transfer pays its mandatory fee exactly and moves the value', () => {
    const c = new TestChain();
    const [a] = genesisNotes(c.genesis);
    const bob = newKey('bob');
    const { tx, outputs } = transfer(c.state, [a!], [{ value: 300n, pk: bob.publicKey }]);
    const fee = mandatoryFee(c.state, tx);
    const out = checkTx(c.state, CTX, tx, 1n);
    assert.equal(out.mandatoryFee, fee);
    assert.equal(out.tip, 0n);
    assert.equal(out.executionGas, 590n);
    const r = c.apply([tx]);
    assert.equal(r.state.notes.has(a!.id), false);
    assert.equal(r.state.notes.get(outputs[0]!.id)?.note.value, 300n);
    assert.equal(r.state.notes.get(outputs[1]!.id)?.note.value, a!.note.value - 300n - fee);
    assert.equal(r.state.utxos.size, 21);
    assert.equal(r.state.block_number, 1n);
    assert.deepEqual(r.events, []);
  });

  test('a chain of transfers spends the outputs of the previous block; surplus is a tip', () => {
    const c = new TestChain();
    let [n] = genesisNotes(c.genesis);
    const carol = newKey('carol');
    let pendingBefore = c.state.leader.pending_rewards;
    for (let i = 0; i < 5; i++) {
      const { tx, outputs } = transfer(c.state, [n!], [{ value: 1000n, pk: carol.publicKey }], { tip: 10n });
      const r = c.apply([tx]);
      assert.ok(r.state.leader.pending_rewards >= pendingBefore + 10n);
      pendingBefore = r.state.leader.pending_rewards;
      n = outputs[1];
    }
    assert.equal(c.state.block_number, 5n);
  });

  test('rejections: insufficient fee, missing input, duplicate input, bad signature, zero output, empty inputs', () => {
    const c = new TestChain();
    const [a, b] = genesisNotes(c.genesis);
    const pk = KEYS[1]!.publicKey;
    // Paying one unit less than the mandatory fee.
    const { tx } = transfer(c.state, [a!], [{ value: 5n, pk }]);
    const fee = mandatoryFee(c.state, tx);
    const under = transfer(c.state, [a!], [{ value: 5n, pk }], { feeOverride: fee - 1n }).tx;
    rejects(() => checkTx(c.state, CTX, under, 1n), 'InsufficientBalance');
    // Spending more than the inputs hold.
    const all = signTx(
      [{ opcode: Opcode.Transfer, payload: { inputs: [a!.id], outputs: [{ value: a!.note.value, pk }] } }],
      [[a!.sk]],
    );
    rejects(() => checkTx(c.state, CTX, all, 1n), 'InsufficientBalance');
    // Unknown input.
    rejects(
      () => checkTx(c.state, CTX, transfer(c.state, [{ ...a!, id: 12345n }], [{ value: 5n, pk }]).tx, 1n),
      'InputNotFound',
    );
    // Same note twice.
    rejects(
      () => checkTx(c.state, CTX, transfer(c.state, [a!, a!], [{ value: 5n, pk }]).tx, 1n),
      'DuplicateInput',
    );
    // Signed by the wrong key.
    rejects(
      () => checkTx(c.state, CTX, transfer(c.state, [{ ...a!, sk: b!.sk + 1n }], [{ value: 5n, pk }]).tx, 1n),
      'InvalidZkSignature',
    );
    // Zero-value output and no inputs (stateless checks).
    const zero = signTx(
      [{ opcode: Opcode.Transfer, payload: { inputs: [a!.id], outputs: [{ value: 0n, pk }] } }],
      [[a!.sk]],
    );
    rejects(() => checkTx(c.state, CTX, zero, 1n), 'ZeroValueOutput');
    const empty = signTx(
      [{ opcode: Opcode.Transfer, payload: { inputs: [], outputs: [{ value: 1n, pk }] } }],
      [[]],
    );
    rejects(() => checkTx(c.state, CTX, empty, 1n), 'EmptyInputs');
  });

  test('a note spent in one block cannot be spent again; an invalid tx invalidates the block', () => {
    const c = new TestChain();
    const [a] = genesisNotes(c.genesis);
    const first = transfer(c.state, [a!], [{ value: 7n, pk: KEYS[2]!.publicKey }]);
    const second = transfer(c.state, [a!], [{ value: 8n, pk: KEYS[2]!.publicKey }]);
    const bad = c.block([first.tx, second.tx]);
    assert.throws(
      () => applyBlock(c.state, bad, CTX),
      (e: unknown) => e instanceof LedgerError && e.ledgerCode === 'InputNotFound' && e.txIndex === 1,
    );
    c.apply([first.tx]);
    rejects(() => c.apply([second.tx]), 'InputNotFound');
  });

  test('blocks must move forward in slots and carry a valid proof of leadership', () => {
    const c = new TestChain();
    c.apply([], 5n);
    rejects(() => c.apply([], 5n), 'InvalidSlot');
    const b = c.block([], 6n);
    const forged = {
      ...b,
      header: {
        ...b.header,
        proof_of_leadership: { ...b.header.proof_of_leadership, entropy_contribution: 99n },
      },
    };
    rejects(() => applyBlock(c.state, forged, CTX), 'InvalidLeaderProof');
  });

  test('applying a block never changes the parent state (forks are independent)', () => {
    const c = new TestChain();
    const [a] = genesisNotes(c.genesis);
    const parent = c.state;
    const rootBefore = parent.utxos.root();
    const forkA = applyBlock(
      parent,
      c.block([transfer(parent, [a!], [{ value: 1n, pk: KEYS[1]!.publicKey }]).tx]),
      CTX,
    );
    const forkB = applyBlock(
      parent,
      c.block([transfer(parent, [a!], [{ value: 2n, pk: KEYS[2]!.publicKey }]).tx], 2n),
      CTX,
    );
    assert.equal(parent.notes.has(a!.id), true);
    assert.equal(parent.utxos.root(), rootBefore);
    assert.notEqual(forkA.state.utxos.root(), forkB.state.utxos.root());
    assert.notEqual(forkA.state.utxos.root(), rootBefore);
  });
});

describe('block limits', () => {
  test('more than 1024 transactions', () => {
    const c = new TestChain();
    const txs = Array.from({ length: 1025 }, () => ({ mantle_tx: { ops: [] }, ops_proofs: [] }));
    rejects(() => c.apply(txs), 'TooManyTransactions');
  });

  test('more than 2 MiB of transactions, checked before any is executed', () => {
    const c = new TestChain();
    const big = (i: number) =>
      signTx(
        [
          {
            opcode: Opcode.ChannelInscribe,
            payload: {
              channel_id: new Uint8Array(32).fill(i),
              inscription: new Uint8Array(1_835_008),
              parent: new Uint8Array(32),
              signer: new Uint8Array(32),
            },
          },
        ],
        [[]],
      );
    rejects(() => c.apply([big(1), big(2)]), 'BlockTooLarge');
  });
});

describe('deferred proof verification', () => {
  test('a block applies with the asynchronous backend only if every recorded proof verifies', async () => {
    const c = new TestChain();
    const [a, b] = genesisNotes(c.genesis);
    const good = c.block([transfer(c.state, [a!], [{ value: 3n, pk: KEYS[1]!.publicKey }]).tx]);
    const r = await applyBlockVerified(c.state, good, c.ctx.config, INSECURE_TEST_PROOFS);
    assert.equal(r.state.block_number, 1n);
    const forged = c.block([
      transfer(c.state, [{ ...b!, sk: b!.sk + 1n }], [{ value: 3n, pk: KEYS[1]!.publicKey }]).tx,
    ]);
    await assert.rejects(
      applyBlockVerified(c.state, forged, c.ctx.config, INSECURE_TEST_PROOFS),
      (e: unknown) => e instanceof LedgerError && e.ledgerCode === 'InvalidZkSignature',
    );
    const badLeader = {
      ...good,
      header: {
        ...good.header,
        proof_of_leadership: { ...good.header.proof_of_leadership, proof: new Uint8Array(128) },
      },
    };
    await assert.rejects(
      applyBlockVerified(c.state, badLeader, c.ctx.config, INSECURE_TEST_PROOFS),
      (e: unknown) => e instanceof LedgerError && e.ledgerCode === 'InvalidLeaderProof',
    );
  });

  test('a block with one invalid ZK signature among 100 transfers is refused naming that transaction', async () => {
    const c = new TestChain();
    const [fund] = genesisNotes(c.genesis);
    const owner = fund!.note.pk;
    const split = transfer(
      c.state,
      [fund!],
      Array.from({ length: 100 }, () => ({ value: 900_000n, pk: owner })),
    );
    c.apply([split.tx]);
    const txs = split.outputs.slice(0, 100).map((n) => transfer(c.state, [n], []).tx);
    // Transaction 57 carries the signature of transaction 58: valid, but not for its own hash.
    const bad = { ...txs[57]!, ops_proofs: txs[58]!.ops_proofs };
    const block = c.block(txs.map((t, i) => (i === 57 ? bad : t)));
    const badHash = bytesToHex(txHash(bad.mantle_tx));
    await assert.rejects(
      applyBlockVerified(c.state, block, c.ctx.config, INSECURE_TEST_PROOFS),
      (e: unknown) =>
        e instanceof LedgerError &&
        e.ledgerCode === 'InvalidZkSignature' &&
        e.message.includes(badHash) &&
        e.meta.opIndex === 0,
    );
    const good = c.block(txs);
    assert.equal(
      (await applyBlockVerified(c.state, good, c.ctx.config, INSECURE_TEST_PROOFS)).state.block_number,
      2n,
    );
  });
});
