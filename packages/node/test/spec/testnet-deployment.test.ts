/**
 * The reference's public testnet deployment (deployments/testnet.yaml), checked against the values of
 * F's nodes/node/binary/src/config/deployment/settings.yaml @9316763a: its parameters and protocol
 * names, and its genesis block decoded with this node's codec and applied as F's genesis is (notes,
 * SDP declarations, the inscription). F's `locked_note_id` values and its header `block_root` pin our
 * note ids and transaction hash; F pins no header id, so the id is the one our codec computes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { blockBodyRoot } from '../../src/block/block.ts';
import { bytesToHex } from '../../src/codec/hex.ts';
import { frToBytes } from '../../src/crypto/field.ts';
import { parseDeployment } from '../../src/ledger/deployment.ts';
import { buildGenesis } from '../../src/ledger/genesis.ts';
import { epochSchedule } from '../../src/ledger/parameters.ts';
import { nextRewardTarget } from '../../src/ledger/pow-claims.ts';
import { locatorToString } from '../../src/mantle/locator.ts';
import { noteId } from '../../src/mantle/note.ts';
import { Opcode, opId } from '../../src/mantle/ops.ts';
import { txHash } from '../../src/mantle/tx.ts';
import { loadDeployment } from '../../src/node/load.ts';
import { INSECURE_TEST_CHECKS } from '../../src/zk/insecure-test-proofs.ts';

const F = '(F: nodes/node/binary/src/config/deployment/settings.yaml)';
const TEXT = readFileSync(new URL('../../deployments/testnet.yaml', import.meta.url), 'utf8');
const d = parseDeployment(TEXT, 'testnet');
const hex = (x: bigint) => bytesToHex(frToBytes(x));

/** The genesis header id of the testnet, computed with this node's codec (F pins none). */
const GENESIS_ID = '5ce0d8e56d092c31bd9bceebed47050cecc38a37f498bbc421faf368ad25b460';
/** F's header `block_root`: the Merkle root of the one genesis transaction, i.e. its hash. */
const BLOCK_ROOT = '8dfa1c877bdf3d25f91adcc3c910c3b5d3253f369d2cc1df05110c01a32ba3f3';

/** F's four genesis declarations: provider id, zk id, locator, locked note id. */
const DECLARATIONS = [
  [
    '59c662860b737f4e2515599adb3434856db8070b373a449ff66955ad3da6b473',
    '6b2bcd3029fba573cff0c332dc4de7430faf5e261383d693d8dbb5b97665660a',
    '/ip4/65.109.51.37/udp/3400/quic-v1',
    '44e03d8e7c4e4df2ccbbc2ec06862688610b558a7ef5466ad7ce8b656341d826',
  ],
  [
    '7fce82aa171b349a40f2a98ce9a05b5db62415adfd3ab4ffea6f214443d5909d',
    'ae9a47f76c9a2c00c40310cc82a1da9f5292af9ee223b898c38478c85fd39515',
    '/ip4/65.109.51.37/udp/3401/quic-v1',
    '4f992361ddeee887907e5ec3ef3105bbfc04665519342ce4618a04c07a9bab14',
  ],
  [
    'da8060ee71506bcbf1ac50973ad6dedc3a6cae69139b9d12bfd9c80c4785f6b0',
    '4114009ea9da81c5fcb680eca33129fb3fe166af733d25a23ac2da567ee84c19',
    '/ip4/65.109.51.37/udp/3402/quic-v1',
    'da256d2a4934ad2d87bc16e44750af8fa257bdc00d92f2866f027b41bf580e1e',
  ],
  [
    'f6807fc50fbd4ef5f7fe1aaef037ee78d23233e60de802da36bfbb64215800fe',
    '4d705c711b7c99fc041576c0c5412934cd86f3369d88c9f451e786c0e396fb1c',
    '/ip4/65.109.51.37/udp/50002/quic-v1',
    '3727cd76de980d961911a4926bd5b0d42b67327fa06920cb96f47fe2b54a1d01',
  ],
] as const;

const FAUCET = 'c2a6a4a0981d5bdcf8ddeb8d7934fd8c5510efeb1053f613b45871670b6f7b19';

describe(`the reference's testnet deployment ${F}`, () => {
  test('default_initialization: the shipped testnet deployment parses, by name too', () => {
    assert.equal(d.name, 'testnet');
    assert.equal(d.test, false);
    assert.equal(d.circuits, 'reference');
    assert.equal(loadDeployment('testnet').genesis.chain_id, '0.2.1');
  });

  test("protocol names and topics are F's", () => {
    const n = '/logos-blockchain-testnet-0.2.1';
    assert.deepEqual(d.network, {
      kademlia_protocol_name: `${n}/kad/1.0.0`,
      identify_protocol_name: `${n}/identify/1.0.0`,
      chain_sync_protocol_name: `${n}/chainsync/1.0.0`,
      block_topic: `${n}/cryptarchia/1.0.0`,
      tx_topic: `${n}/mempool/1.0.0`,
    });
    assert.equal(d.blend.protocol_name, `${n}/blend/1.0.0`);
  });

  test("time, cryptarchia, SDP, Blend and PoW parameters are F's", () => {
    assert.equal(d.slot_duration_ms, 1000);
    assert.equal(d.mempool.tx_ttl_ms, 24 * 3600 * 1000);
    const c = d.ledger.consensus;
    assert.equal(c.security_param, 120);
    assert.deepEqual(c.active_slot_coeff, { num: 1n, den: 30n });
    assert.deepEqual(
      [
        c.epoch_stake_distribution_stabilization,
        c.epoch_period_nonce_buffer,
        c.epoch_period_nonce_stabilization,
      ],
      [3, 3, 4],
    );
    assert.deepEqual(c.stake_inference_learning_rate, { num: 1n, den: 1n });
    assert.equal(c.uncle_reference_window_in_blocks, 12);
    assert.equal(epochSchedule(c).epoch_length, 36_000n);
    assert.equal(d.ledger.sdp.min_stake, 1_000_000_000n);
    assert.equal(d.ledger.sdp.inactivity_period, 2);
    assert.deepEqual(d.ledger.blend_pow, {
      base_difficulty: 19,
      target_transactions_per_block: 512n,
      max_step: 2n,
      damping_num: 1,
      damping_den_offset: 1,
    });
    assert.deepEqual(d.blend, {
      num_blend_layers: 1,
      minimum_network_size: 2,
      protocol_name: '/logos-blockchain-testnet-0.2.1/blend/1.0.0',
      data_replication_factor: 1,
      message_frequency_per_round: 1,
      maximum_release_delay_in_rounds: 1,
      rounds_per_slot: 1,
      minimum_messages_coefficient: 1,
      normalization_constant: 1.03,
      activity_threshold_sensitivity: 1,
    });
    // F's hard-coded PoW reward constants (ledger/src/mantle/pow/mod.rs, difficulty.rs, lib.rs).
    const p = d.ledger.pow;
    assert.equal(p.reward_pool_genesis, 1_000_000_000n);
    assert.equal(p.epoch_reward_genesis, 1_000_000n);
    assert.deepEqual(
      [p.ema_smoothing_factor, p.ema_smoothing_precision, p.target_claims_per_block],
      [9n, 10n, 100n],
    );
    assert.deepEqual([p.rate_num, p.rate_den, p.pow_share.num, p.slot_window], [0n, 1n, 0n, 100]);
    assert.equal(hex(d.ledger.faucet_pk!), FAUCET);
  });

  test("its genesis block decodes: header as F gives it, transaction hash = F's block_root", () => {
    const b = d.genesis.block!;
    assert.ok(b);
    assert.equal(b.header.slot, 0n);
    assert.equal(bytesToHex(b.header.parent_block), '00'.repeat(32));
    assert.equal(bytesToHex(b.header.body_root), BLOCK_ROOT);
    assert.equal(bytesToHex(txHash(b.transactions[0]!.mantle_tx)), BLOCK_ROOT);
    // Under the current rule (uncle headers committed) the root would differ: F's file predates it.
    assert.notEqual(bytesToHex(blockBodyRoot(b)), BLOCK_ROOT);
    const ops = b.transactions[0]!.mantle_tx.ops;
    assert.deepEqual(
      ops.map((o) => o.opcode),
      [Opcode.Transfer, Opcode.ChannelInscribe, ...DECLARATIONS.map(() => Opcode.SDPDeclare)],
    );
    assert.deepEqual(
      b.transactions[0]!.ops_proofs.map((p) => p.type),
      ['ZkSig', 'Ed25519Sig', 'ZkAndEd25519Sigs', 'ZkAndEd25519Sigs', 'ZkAndEd25519Sigs', 'ZkAndEd25519Sigs'],
    );
  });

  test('the inscription: chain "0.2.1", chain start 1785920400 (2026-08-05T09:00:00Z), its nonce', () => {
    assert.equal(d.genesis.chain_id, '0.2.1');
    assert.equal(d.genesis.genesis_time, 1_785_920_400);
    assert.equal(
      hex(d.genesis.epoch_nonce),
      '2d2ddf918544bca603c5a291c7dd1b902d6769ff4b00021506780e075c06051a',
    );
  });

  test("the genesis state: every note, the four declarations locking F's note ids, the inscription; id pinned", () => {
    const g = buildGenesis(d, { config: d.ledger, proofs: INSECURE_TEST_CHECKS });
    assert.equal(bytesToHex(g.id), GENESIS_ID);
    assert.equal(g.parameter.chain_id, '0.2.1');
    assert.equal(g.parameter.genesis_time, 1_785_920_400);
    const transfer = d.genesis.block!.transactions[0]!.mantle_tx.ops[0]!;
    assert.equal(transfer.opcode, Opcode.Transfer);
    const outputs = transfer.payload.outputs;
    assert.equal(outputs.length, 138);
    assert.equal(g.state.notes.size, 138);
    const tid = opId(transfer);
    for (let i = 0; i < outputs.length; i++)
      assert.ok(g.state.notes.get(noteId(tid, i, outputs[i]!)), `note ${i}`);
    assert.equal(outputs.filter((n) => n.value === 8_000_000_000_000n).length, 121);
    assert.equal(hex(outputs[137]!.pk), FAUCET);
    assert.equal(outputs[137]!.value, 2n ** 64n - 1n);
    // Stake: every note but the faucet's (4 × (1e14 + 2e14 + 2e14 + 1e9) + 121 × 8e12).
    assert.equal(g.state.epoch_state.total_stake, 2_968_004_000_000_000n);

    const decls = [...g.state.sdp.declarations.values()];
    assert.equal(decls.length, 4);
    for (const [provider, zk, locator, locked] of DECLARATIONS) {
      const found = decls.find((x) => bytesToHex(x.provider_id) === provider);
      assert.ok(found, provider);
      assert.equal(hex(found.zk_id), zk);
      assert.deepEqual(found.locators.map(locatorToString), [locator]);
      assert.equal(hex(found.service_note_id), locked);
      // The locked note is the operator's 1e9 note, created by the genesis transfer.
      const note = g.state.notes.get(found.service_note_id);
      assert.ok(note, `locked note ${locked}`);
      assert.equal(note.note.value, 1_000_000_000n);
      assert.equal(hex(note.note.pk), zk);
    }
    assert.deepEqual(
      d.genesis.declarations.map((x) => x.note_index),
      [3, 7, 11, 15],
    );
    // The inscription opened channel 0.
    assert.equal(g.state.channels.size, 1);
    // F's genesis PoW state (ledger/src/mantle/pow/mod.rs `PowState::new`): pool 1e9, 1e6 a claim,
    // target compute_new_reward_difficulty(1000, 1e6).
    assert.equal(g.state.pow.pool, 1_000_000_000n);
    assert.equal(g.state.pow.epoch_reward, 1_000_000n);
    assert.equal(g.state.pow.target, nextRewardTarget(1000n, 1_000_000n, d.ledger.pow));
    assert.equal(g.state.pow.target, 526_315n);
  });
});
