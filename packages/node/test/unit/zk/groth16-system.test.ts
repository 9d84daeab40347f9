/**
 * End to end with real Groth16 proofs (the devnet keys in zk/keys): one proof of each statement is
 * made and verified, forgeries are refused, and the ledger accepts a block only through them.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { bodyRoot } from '../../../src/block/block.ts';
import { encodeHeader, type Header } from '../../../src/block/header.ts';
import {
  entropyContribution,
  isWinningTicket,
  leaderThreshold,
  leaderTicket,
} from '../../../src/consensus/lottery.ts';
import { Ed25519Signer } from '../../../src/crypto/ed25519.ts';
import { frFromAscii, frFromBytesModOrder } from '../../../src/crypto/field.ts';
import { compress } from '../../../src/crypto/poseidon2/index.ts';
import { zkPublicKey } from '../../../src/crypto/zk-keys.ts';
import { epochStateAt, leaderKeyHalves, polPublicInputs } from '../../../src/ledger/apply.ts';
import { LedgerError } from '../../../src/ledger/errors.ts';
import { genesisTransaction } from '../../../src/ledger/genesis.ts';
import { VoucherTree, voucherPath } from '../../../src/ledger/trees/voucher-tree.ts';
import { applyBlockVerified } from '../../../src/ledger/verified.ts';
import { noteId } from '../../../src/mantle/note.ts';
import { Opcode, opId } from '../../../src/mantle/ops.ts';
import { txHash, txHashToFr } from '../../../src/mantle/tx.ts';
import { loadCircuitFolder, SHIPPED_CIRCUITS_DIR } from '../../../src/zk/circuit-folder.ts';
import { Groth16ProofSystem } from '../../../src/zk/groth16-system.ts';
import { createProofSystem } from '../../../src/zk/index.ts';
import { DEVNET, genesisNotes, KEYS, TestChain, transfer } from '../../mocks/ledger.ts';

const zk = new Groth16ProofSystem({ circuits: SHIPPED_CIRCUITS_DIR });
after(() => zk.close());

describe('Groth16 backend', () => {
  test('ZkSig: a real signature verifies; another message, key set or key order does not', async () => {
    const sks = [11n, 22n];
    const pks = sks.map(zkPublicKey);
    const sig = await zk.proveZkSign(123n, sks);
    assert.equal(await zk.verifyZkSign({ msg: 123n, publicKeys: pks }, sig), true);
    assert.equal(await zk.verifyZkSign({ msg: 124n, publicKeys: pks }, sig), false);
    assert.equal(await zk.verifyZkSign({ msg: 123n, publicKeys: [pks[0]!] }, sig), false);
    assert.equal(await zk.verifyZkSign({ msg: 123n, publicKeys: [pks[1]!, pks[0]!] }, sig), false);
  });

  test('PoC: a voucher in the snapshot tree claims with its nullifier, bound to the tx hash', async () => {
    const REWARD_VOUCHER = frFromAscii('REWARD_VOUCHER');
    const VOUCHER_NF = frFromAscii('VOUCHER_NF');
    const secrets = [5n, 6n, 7n];
    const leaves = secrets.map((s) => compress(REWARD_VOUCHER, s));
    let tree = VoucherTree.empty();
    for (const l of leaves) tree = tree.append(l);
    const inputs = {
      voucher_nullifier: compress(VOUCHER_NF, 6n),
      voucher_root: tree.root(),
      mantle_tx_hash: 999n,
    };
    const proof = await zk.provePoc(inputs, {
      voucher_secret: 6n,
      voucher_path: voucherPath(leaves, 1),
      voucher_index: 1,
    });
    assert.equal(await zk.verifyPoc(inputs, proof), true);
    assert.equal(await zk.verifyPoc({ ...inputs, mantle_tx_hash: 998n }, proof), false);
    assert.equal(
      await zk.verifyPoc({ ...inputs, voucher_nullifier: compress(VOUCHER_NF, 5n) }, proof),
      false,
    );
    await assert.rejects(
      zk.provePoc(inputs, { voucher_secret: 5n, voucher_path: voucherPath(leaves, 1), voucher_index: 1 }),
      { code: 'PROVER_ERROR', message: /Assert Failed/ },
    );
  });

  test('the ledger accepts a block with a real proof of leadership and a real ZkSig transfer, and refuses forgeries', async () => {
    const c = new TestChain();
    const notes = genesisNotes(c.genesis);
    const leaderNote = notes[0]!;
    // The genesis notes come from the genesis transfer: op id and output index give the note's origin.
    const gtx = genesisTransaction(DEVNET, 1_700_000_000);
    const gop = gtx.mantle_tx.ops[0]!;
    if (gop.opcode !== Opcode.Transfer) throw new Error('the genesis op 0 is a transfer');
    const origin = gop.payload.outputs.findIndex((n, i) => noteId(opId(gop), i, n) === leaderNote.id);
    assert.ok(origin >= 0);
    // Find a slot where the note wins.
    let slot = 1n;
    let es = epochStateAt(c.state, c.ctx, slot);
    const threshold = () => leaderThreshold(leaderNote.note.value, es.lottery);
    while (!isWinningTicket(leaderTicket(es.nonce, slot, leaderNote.id, leaderNote.sk), threshold())) {
      slot++;
      es = epochStateAt(c.state, c.ctx, slot);
    }
    const leader = new Ed25519Signer(new Uint8Array(32).fill(9));
    const tx = transfer(c.state, [notes[1]!], [{ value: 10n, pk: KEYS[2]!.publicKey }]).tx;
    const realSig = await zk.proveZkSign(txHashToFr(txHash(tx.mantle_tx)), [notes[1]!.sk]);
    tx.ops_proofs[0] = { type: 'ZkSig', signature: realSig };
    const header: Header = {
      parent_block: c.tip,
      slot,
      body_root: bodyRoot([], [txHash(tx.mantle_tx)]),
      proof_of_leadership: {
        proof: new Uint8Array(128),
        entropy_contribution: entropyContribution(slot, leaderNote.id, leaderNote.sk),
        leader_key: leader.publicKey,
        voucher_cm: 1n,
      },
    };
    const inputs = polPublicInputs(es, c.state.utxos.root(), header);
    const index = c.state.notes.get(leaderNote.id)!.index;
    header.proof_of_leadership.proof = await zk.provePol(inputs, {
      secret_key: leaderNote.sk,
      note_value: leaderNote.note.value,
      note_tx_hash: frFromBytesModOrder(opId(gop)),
      note_output_index: origin,
      aged_path: es.utxos.path(index),
      aged_index: index,
      latest_path: c.state.utxos.path(index),
      latest_index: index,
    });
    const block = {
      header,
      signature: leader.sign(encodeHeader(header)),
      uncle_headers: [],
      transactions: [tx],
    };
    const r = await applyBlockVerified(c.state, block, c.ctx.config, zk);
    assert.equal(r.state.block_number, 1n);
    // The same proof under another leader key (the key halves are public inputs) is refused.
    const other = new Ed25519Signer(new Uint8Array(32).fill(10));
    const stolen = {
      ...header,
      proof_of_leadership: { ...header.proof_of_leadership, leader_key: other.publicKey },
    };
    assert.notDeepEqual(leaderKeyHalves(other.publicKey), leaderKeyHalves(leader.publicKey));
    await assert.rejects(
      applyBlockVerified(
        c.state,
        { ...block, header: stolen, signature: other.sign(encodeHeader(stolen)) },
        c.ctx.config,
        zk,
      ),
      (e: unknown) => e instanceof LedgerError && e.ledgerCode === 'InvalidLeaderProof',
    );
    // A transfer signed for another transaction is refused.
    const tx2 = transfer(c.state, [notes[2]!], [{ value: 11n, pk: KEYS[2]!.publicKey }]).tx;
    tx2.ops_proofs[0] = { type: 'ZkSig', signature: realSig };
    const h2 = { ...header, body_root: bodyRoot([], [txHash(tx2.mantle_tx)]) };
    await assert.rejects(
      applyBlockVerified(
        c.state,
        { header: h2, signature: leader.sign(encodeHeader(h2)), uncle_headers: [], transactions: [tx2] },
        c.ctx.config,
        zk,
      ),
      (e: unknown) =>
        e instanceof LedgerError &&
        (e.ledgerCode === 'InvalidZkSignature' || e.ledgerCode === 'InvalidLeaderProof'),
    );
  });
});

describe('backend choice', () => {
  test('Groth16 by default; the insecure backend only for test deployments; bad keys are refused', async () => {
    const real = createProofSystem(DEVNET);
    assert.equal(real.name, 'groth16');
    assert.equal(real.secure, true);
    await real.close();
    assert.throws(() => createProofSystem(DEVNET, { insecureTestProofs: true }), /not a test deployment/);
    assert.equal(createProofSystem({ ...DEVNET, test: true }, { insecureTestProofs: true }).secure, false);
    assert.throws(
      () => createProofSystem(DEVNET, { circuits: '/nonexistent' }),
      /circuits folder \/nonexistent does not exist/,
    );
  });

  test('a proving key whose sha256 differs from the manifest is refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keys-'));
    cpSync(SHIPPED_CIRCUITS_DIR, dir, { recursive: true });
    const vk = join(dir, 'poc', 'verification_key.json');
    writeFileSync(vk, readFileSync(vk, 'utf8').replace('"protocol"', '"protocol" '));
    assert.throws(
      () => loadCircuitFolder(dir),
      /poc\/verification_key\.json has sha256 [0-9a-f]{64}, the manifest pins/,
    );
    rmSync(dir, { recursive: true });
  });
});
