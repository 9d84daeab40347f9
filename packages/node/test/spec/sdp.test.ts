/**
 * SDP declarations, activity, withdrawals and the active sets, ported from the reference's tests:
 * ledger/src/mantle/sdp/mod.rs, core/src/mantle/ops/sdp/declare.rs, core/src/sdp/{mod,locked_notes,blend}.rs.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { ROUTES } from '../../src/api/impl/index.ts';
import type { ApiContext } from '../../src/api/types.ts';
import { bytesToHex } from '../../src/codec/hex.ts';
import { decode, encode } from '../../src/codec/schema.ts';
import { keyNullifierOf, selectionIndex } from '../../src/crypto/blend/selection.ts';
import { Ed25519Signer } from '../../src/crypto/ed25519.ts';
import type { Fr } from '../../src/crypto/field.ts';
import { zkPublicKey } from '../../src/crypto/zk-keys.ts';
import { parseDeployment } from '../../src/ledger/deployment.ts';
import { Draft, type LedgerContext } from '../../src/ledger/draft.ts';
import { scheduleOf } from '../../src/ledger/epoch.ts';
import { LedgerError } from '../../src/ledger/errors.ts';
import type { HeaderEvent } from '../../src/ledger/events.ts';
import type { OpEnv } from '../../src/ledger/op-env.ts';
import type { LedgerConfig, SdpParams } from '../../src/ledger/parameters.ts';
import {
  activeDeclarations,
  applySdpActive,
  applySdpDeclare,
  applySdpWithdraw,
  newDeclaration,
  sdpEpochChange,
} from '../../src/ledger/sdp.ts';
import {
  blendingTokenBytes,
  coreQuota,
  resolveBlendRewardParams,
  tokenDistance,
  tokenEvaluation,
} from '../../src/ledger/sdp-rewards.ts';
import { locatorFromString } from '../../src/mantle/locator.ts';
import { type BlendActivityProof, blendActivityProof, type SDPDeclareOp } from '../../src/mantle/ops.ts';
import type { OpProof } from '../../src/mantle/proofs.ts';
import { declarationId } from '../../src/mantle/sdp.ts';
import { insecureTestPoqProofOf } from '../../src/zk/insecure-test-proofs.ts';
import { CTX, DEVNET, TestChain } from '../mocks/ledger.ts';

// ---------- a ledger harness (F: ledger/src/mantle/sdp/mod.rs tests `setup`, `dummy_sdp_ledger`) ----------

const NO_PROOF = { type: 'ZkSig' } as unknown as OpProof;

/** `setup(ServiceParameters { inactivity_period, .. })`: rounds 10, β 3, network ≥ 1, min stake 1. */
function setupConfig(inactivity: number, over: Partial<SdpParams> = {}): LedgerConfig {
  return {
    ...CTX.config,
    sdp: {
      min_stake: 1n,
      inactivity_period: inactivity,
      blend_rewards: {
        rounds_per_epoch: 10n,
        message_frequency_per_round: 1.0,
        num_blend_layers: 3n,
        minimum_network_size: 1n,
        data_replication_factor: 0n,
        activity_threshold_sensitivity: 1n,
      },
      ...over,
    },
  };
}

class SdpLedger {
  readonly ctx: LedgerContext;
  readonly draft: Draft;
  private seq = 0;

  constructor(config: LedgerConfig) {
    this.ctx = { ...CTX, config };
    this.draft = new Draft(new TestChain().state);
  }

  get epoch(): number {
    return this.draft.epoch;
  }

  /** A fresh note of `value` (default 10 000) owned by zk secret 0's key. */
  note(value = 10_000n): Fr {
    const op = new Uint8Array(32).fill(++this.seq);
    op[31] = 0xee;
    return this.draft.addNote(op, 0, { value, pk: zkPublicKey(7n) });
  }

  private env(): OpEnv {
    return {
      ctx: this.ctx,
      draft: this.draft,
      txHash: new Uint8Array(32),
      txMsg: 0n,
      opIndex: 0,
      slot: this.draft.slot,
      genesis: true,
    };
  }

  declare(op: SDPDeclareOp): string {
    applySdpDeclare(this.env(), op, NO_PROOF);
    return bytesToHex(declarationId(op));
  }

  active(declaration: string, nonce: bigint, proof: BlendActivityProof): void {
    applySdpActive(
      this.env(),
      { declaration_id: Uint8Array.from(Buffer.from(declaration, 'hex')), nonce, metadata: { Blend: proof } },
      NO_PROOF,
    );
  }

  withdraw(declaration: string, nonce: bigint, note: Fr): void {
    applySdpWithdraw(
      this.env(),
      { declaration_id: Uint8Array.from(Buffer.from(declaration, 'hex')), nonce, service_note_id: note },
      NO_PROOF,
    );
  }

  /** The header of the first block of `epoch` (nonce 0, as the reference tests' epoch states). */
  advanceTo(epoch: number): HeaderEvent[] {
    const last = this.draft.epoch;
    this.draft.epoch_state = { ...this.draft.epoch_state, epoch, nonce: 0n };
    this.draft.next_epoch_state = { ...this.draft.next_epoch_state, epoch: epoch + 1, nonce: 0n };
    return sdpEpochChange(this.draft, last, epoch, this.ctx.config, scheduleOf(this.ctx.config.consensus));
  }

  snapshotContains(id: string, epoch: number): boolean {
    return activeDeclarations(this.draft.sdp.declarations, epoch, this.ctx.config.sdp).has(id);
  }
}

const signingKey = new Ed25519Signer(new Uint8Array(32)).publicKey;

function declareOpOf(
  note: Fr,
  zkId: Fr,
  locator = '/ip4/1.1.1.1/udp/0',
  provider = signingKey,
): SDPDeclareOp {
  return {
    service_type: 'BN',
    locators: [locatorFromString(locator)],
    provider_id: provider,
    zk_id: zkId,
    service_note_id: note,
  };
}

/**
 * An activity proof for the single-provider target epoch that the rewards accept: the proof of
 * selection designates index 0 and commits to the key nullifier, and the token's distance is within
 * the threshold (F: ledger/src/mantle/sdp/test_utils.rs `generate_activity_proof` grinds likewise).
 * Its proof of quota is the test backend's proof of the target epoch's inputs with that key nullifier.
 */
function activityProof(
  l: SdpLedger,
  targetEpoch: number,
  index = 0n,
  n = 1n,
  key = signingKey,
): BlendActivityProof {
  const p = resolveBlendRewardParams(l.ctx.config.sdp.blend_rewards, 0n);
  const ev = tokenEvaluation(coreQuota(p, Number(n)), n, p.activity_threshold_sensitivity);
  for (let r = 1n; ; r++) {
    if (selectionIndex(r, n) !== index) continue;
    const proof: BlendActivityProof = {
      epoch: targetEpoch,
      signing_key: key,
      proof_of_quota: {
        key_nullifier: keyNullifierOf(r),
        proof: insecureTestPoqProofOf(
          { ...l.draft.sdp.rewards.target!.poq, signing_key: key },
          keyNullifierOf(r),
        ),
      },
      proof_of_selection: { selection_randomness: r },
    };
    if (tokenDistance(blendingTokenBytes(proof), ev.token_count_byte_len, 0n) <= ev.activity_threshold)
      return proof;
  }
}

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof LedgerError) return e.ledgerCode;
    throw e;
  }
  return 'accepted';
}

const ZK1 = zkPublicKey(1n);

describe('SDP ledger (ledger/src/mantle/sdp/mod.rs)', () => {
  test('active_declarations_filters_out_inactive (ledger/src/mantle/sdp/mod.rs)', () => {
    const l = new SdpLedger(setupConfig(2));
    l.advanceTo(1);
    const id = l.declare(declareOpOf(l.note(), ZK1));
    for (let e = 2; e <= 6; e++) l.advanceTo(e);
    assert.ok(l.draft.sdp.declarations.has(id));
    assert.equal(l.snapshotContains(id, 6), false);
    assert.equal(l.snapshotContains(id, 5), true);
  });

  test('active_declarations_includes_genesis_at_epochs_0_and_1 (ledger/src/mantle/sdp/mod.rs)', () => {
    const l = new SdpLedger(setupConfig(2));
    const id = l.declare(declareOpOf(l.note(), ZK1));
    assert.equal(l.draft.sdp.declarations.get(id)?.active, 2);
    for (const e of [0, 1]) assert.ok(l.snapshotContains(id, e), `active at epoch ${e}`);
  });

  test('active_declarations_filters_out_withdrawn_at_effective_epoch (ledger/src/mantle/sdp/mod.rs)', () => {
    const l = new SdpLedger(setupConfig(100));
    l.advanceTo(1);
    const note = l.note();
    const id = l.declare(declareOpOf(note, ZK1));
    l.withdraw(id, 1n, note);
    const withdrawAt = l.draft.sdp.declarations.get(id)?.withdraw_at;
    assert.equal(withdrawAt, 3);
    assert.ok(l.draft.sdp.declarations.has(id));
    for (let e = 0; e < 3; e++) assert.ok(l.snapshotContains(id, e), `active at epoch ${e}`);
    for (let e = 3; e <= 5; e++) assert.equal(l.snapshotContains(id, e), false, `inactive at epoch ${e}`);
  });

  test('active_message_refreshes_declaration (ledger/src/mantle/sdp/mod.rs)', () => {
    const l = new SdpLedger(setupConfig(2));
    l.advanceTo(1);
    const id = l.declare(declareOpOf(l.note(), ZK1));
    for (const e of [2, 3, 4]) l.advanceTo(e);
    assert.equal(l.draft.sdp.declarations.get(id)?.active, 3);
    l.active(id, 1n, activityProof(l, 3));
    assert.equal(l.draft.sdp.declarations.get(id)?.active, 4);
    for (const e of [5, 6, 7]) l.advanceTo(e);
    assert.equal(l.draft.sdp.declarations.get(id)?.active, 4);
    assert.equal(l.snapshotContains(id, 7), false);
    assert.equal(l.snapshotContains(id, 6), true);
  });

  test('rewards_distributed_to_active_provider (ledger/src/mantle/sdp/mod.rs)', () => {
    const l = new SdpLedger(setupConfig(2));
    l.advanceTo(1);
    const id = l.declare(declareOpOf(l.note(), ZK1));
    l.advanceTo(2);
    l.advanceTo(3);
    l.draft.sdp = { ...l.draft.sdp, rewards: { ...l.draft.sdp.rewards, current_income: 1000n } };
    l.advanceTo(4);
    l.active(id, 1n, activityProof(l, 3));
    const events = l.advanceTo(5);
    const rewards = events.filter((e) => e.type === 'SdpRewardDistributed');
    assert.equal(rewards.length, 1);
    const r = rewards[0]!;
    assert.ok(r.type === 'SdpRewardDistributed');
    assert.equal(r.utxo.note.pk, ZK1);
    assert.equal(r.utxo.note.value, 1000n);
    assert.equal(r.utxo.output_index, 0);
  });

  test('accepts_reused_ids_after_withdrawn_epoch (ledger/src/mantle/sdp/mod.rs)', () => {
    const l = new SdpLedger(setupConfig(20));
    const noteA = l.note();
    const noteB = l.note();
    const a = l.declare(declareOpOf(noteA, ZK1));
    l.withdraw(a, 1n, noteA);
    const withdrawAt = l.draft.sdp.declarations.get(a)!.withdraw_at!;
    for (let e = 1; e <= withdrawAt; e++) l.advanceTo(e);
    assert.equal(l.draft.sdp.declarations.has(a), false);
    assert.equal(
      code(() => l.declare(declareOpOf(noteB, ZK1, '/ip4/2.2.2.2/udp/0'))),
      'accepted',
    );
  });

  test('test_withdraw_provider (ledger/src/mantle/sdp/mod.rs)', () => {
    const l = new SdpLedger(setupConfig(20));
    const note = l.note();
    const id = l.declare(declareOpOf(note, ZK1));
    assert.ok(l.draft.sdp.declarations.has(id));
    l.withdraw(id, 1n, note);
    const withdrawAt = l.draft.sdp.declarations.get(id)!.withdraw_at!;
    const unlocks = (events: HeaderEvent[]) =>
      events.filter(
        (e) => e.type === 'SdpNoteUnlocked' && e.note_id === note && bytesToHex(e.declaration_id) === id,
      ).length;
    for (let e = 1; e < withdrawAt; e++) assert.equal(unlocks(l.advanceTo(e)), 0);
    assert.ok(l.draft.sdp.declarations.has(id));
    assert.equal(l.draft.notes.get(note)?.locked_by, id);
    assert.equal(unlocks(l.advanceTo(withdrawAt)), 1);
    assert.equal(l.draft.sdp.declarations.has(id), false);
    assert.equal(l.draft.notes.get(note)?.locked_by, null);
  });
});

describe('SDP header events', () => {
  test('at an epoch change, note unlocks come before reward notes (ledger/src/mantle/sdp/mod.rs try_apply_header)', () => {
    const l = new SdpLedger(setupConfig(2));
    l.advanceTo(1);
    const noteA = l.note();
    const a = l.declare(declareOpOf(noteA, ZK1));
    const zk2 = zkPublicKey(2n);
    const other = new Ed25519Signer(new Uint8Array(32).fill(3)).publicKey;
    const b = l.declare(declareOpOf(l.note(), zk2, '/ip4/2.2.2.2/udp/0', other));
    l.advanceTo(2);
    l.advanceTo(3);
    l.withdraw(a, 1n, noteA); // withdraw_at = 5
    l.draft.sdp = { ...l.draft.sdp, rewards: { ...l.draft.sdp.rewards, current_income: 1000n } };
    l.advanceTo(4);
    const bIndex = ZK1 < zk2 ? 1n : 0n;
    l.active(b, 1n, activityProof(l, 3, bIndex, 2n, other));
    const events = l.advanceTo(5);
    assert.deepEqual(
      events.map((e) => e.type),
      ['SdpNoteUnlocked', 'SdpRewardDistributed'],
    );
    const paid = events[1]!;
    assert.ok(paid.type === 'SdpRewardDistributed');
    assert.equal(paid.utxo.note.pk, zk2);
    // base = 1000 / (1 submitter + 1 premium) = 500, doubled for the premium provider.
    assert.equal(paid.utxo.note.value, 1000n);
  });
});

describe('SDP active sets in the epoch states (ledger/src/lib.rs)', () => {
  test('genesis_seeds_epoch_state_sdp_from_mantle (ledger/src/lib.rs)', () => {
    const d = {
      ...DEVNET,
      genesis: {
        ...DEVNET.genesis,
        declarations: [
          {
            locators: [locatorFromString('/ip4/1.1.1.1/udp/0')],
            provider_id: signingKey,
            zk_id: ZK1,
            note_index: 0,
          },
        ],
      },
    };
    const s = new TestChain(d).state;
    assert.equal(s.sdp.declarations.size, 1);
    const cfg = CTX.config.sdp;
    const keys = (m: typeof s.sdp.snapshot) => [...m.keys()].sort();
    assert.deepEqual(keys(s.sdp.snapshot), keys(activeDeclarations(s.sdp.declarations, 0, cfg)));
    assert.deepEqual(keys(s.sdp.next_snapshot), keys(activeDeclarations(s.sdp.declarations, 1, cfg)));
    assert.equal(s.sdp.snapshot.size, 1);
    assert.equal(s.sdp.next_snapshot.size, 1);
  });

  test('snapshot_includes_decl_when_active_refresh_lags_finalization (ledger/src/lib.rs)', () => {
    const l = new SdpLedger(setupConfig(2));
    for (const e of [1, 2, 3]) l.advanceTo(e);
    const id = l.declare(declareOpOf(l.note(), ZK1));
    for (const e of [4, 5, 6]) l.advanceTo(e);
    l.active(id, 1n, activityProof(l, 5));
    assert.equal(l.draft.sdp.declarations.get(id)?.active, 6);
    l.advanceTo(7);
    assert.equal(l.draft.epoch, 7);
    assert.equal(l.draft.sdp.snapshot.get(id)?.active, 5);
    l.advanceTo(8);
    assert.equal(l.draft.sdp.snapshot.get(id)?.active, 6);
  });
});

describe('SDP declare (core/src/mantle/ops/sdp/declare.rs)', () => {
  const provider = (b: number) => new Ed25519Signer(new Uint8Array(32).fill(b)).publicKey;

  test('rejects_duplicate_provider_id_within_service (core/src/mantle/ops/sdp/declare.rs)', () => {
    const l = new SdpLedger(setupConfig(2));
    l.declare(declareOpOf(l.note(), zkPublicKey(1n), '/ip4/1.1.1.1/udp/0', provider(1)));
    assert.equal(
      code(() => l.declare(declareOpOf(l.note(), zkPublicKey(2n), '/ip4/2.2.2.2/udp/0', provider(1)))),
      'DuplicateProviderId',
    );
  });

  test('rejects_duplicate_zk_id_within_service (core/src/mantle/ops/sdp/declare.rs)', () => {
    const l = new SdpLedger(setupConfig(2));
    l.declare(declareOpOf(l.note(), zkPublicKey(1n), '/ip4/1.1.1.1/udp/0', provider(1)));
    assert.equal(
      code(() => l.declare(declareOpOf(l.note(), zkPublicKey(1n), '/ip4/2.2.2.2/udp/0', provider(2)))),
      'DuplicateZkId',
    );
  });
});

describe('SDP locked notes (core/src/sdp/locked_notes.rs)', () => {
  test('test_lock_success (core/src/sdp/locked_notes.rs)', () => {
    const l = new SdpLedger(setupConfig(2));
    const note = l.note();
    const id = l.declare(declareOpOf(note, ZK1));
    assert.equal(l.draft.notes.get(note)?.locked_by, id);
  });

  test('test_lock_fail_already_used (core/src/sdp/locked_notes.rs)', () => {
    const l = new SdpLedger(setupConfig(2));
    const note = l.note();
    l.declare(declareOpOf(note, ZK1));
    const other = new Ed25519Signer(new Uint8Array(32).fill(9)).publicKey;
    assert.equal(
      code(() => l.declare(declareOpOf(note, zkPublicKey(2n), '/ip4/2.2.2.2/udp/0', other))),
      'InputLocked',
    );
  });

  test('lock_fail_insufficient (core/src/sdp/locked_notes.rs)', () => {
    const l = new SdpLedger(setupConfig(2, { min_stake: 999_999n }));
    assert.equal(
      code(() => l.declare(declareOpOf(l.note(10_000n), ZK1))),
      'NoteValueBelowMinStake',
    );
  });

  test('test_lock_success_for_note (core/src/sdp/locked_notes.rs)', () => {
    const l = new SdpLedger(setupConfig(2));
    assert.equal(
      code(() => l.declare(declareOpOf(l.note(), ZK1))),
      'accepted',
    );
  });

  test('test_unlock_last_service_removes_note (core/src/sdp/locked_notes.rs)', () => {
    const l = new SdpLedger(setupConfig(2));
    const note = l.note();
    const id = l.declare(declareOpOf(note, ZK1));
    l.withdraw(id, 1n, note);
    l.advanceTo(1);
    l.advanceTo(2);
    assert.equal(l.draft.notes.get(note)?.locked_by, null);
  });

  test('test_unlock_note_not_locked (core/src/sdp/locked_notes.rs)', () => {
    const l = new SdpLedger(setupConfig(2));
    const note = l.note();
    const id = l.declare(declareOpOf(note, ZK1));
    assert.equal(
      code(() => l.withdraw(id, 1n, l.note())),
      'NoteNotLockedForService',
    );
  });
});

describe('SDP types (core/src/sdp/mod.rs, core/src/sdp/blend.rs; the codec tests are in sdp-codec.test.ts)', () => {
  test('declaration_initialization (core/src/sdp/mod.rs)', () => {
    const msg = declareOpOf(0n, 0n, '/ip4/127.0.0.1/udp/3001/quic-v1');
    const d = newDeclaration(msg, 10);
    assert.equal(d.service_type, msg.service_type);
    assert.deepEqual(d.provider_id, msg.provider_id);
    assert.equal(d.service_note_id, msg.service_note_id);
    assert.deepEqual(d.locators, msg.locators);
    assert.equal(d.zk_id, msg.zk_id);
    assert.equal(d.created, 10);
    assert.equal(d.active, 12);
    assert.equal(d.withdraw_at, null);
    assert.equal(d.nonce, 0n);
  });

  test('activity_proof_invalid_version (core/src/sdp/blend.rs)', () => {
    const fill = (n: number, v: number) => new Uint8Array(n).fill(v);
    const proof: BlendActivityProof = {
      epoch: 10,
      signing_key: new Ed25519Signer(new Uint8Array(32)).publicKey,
      proof_of_quota: {
        key_nullifier: 0n,
        proof: { pi_a: fill(32, 0), pi_b: fill(64, 0), pi_c: fill(32, 0) },
      },
      proof_of_selection: { selection_randomness: 1n },
    };
    const bytes = encode(blendActivityProof, proof);
    bytes[0] = 0x99;
    assert.throws(() => decode(blendActivityProof, bytes), /version/);
  });

  test('activity_proof_too_short (core/src/sdp/blend.rs)', () => {
    assert.throws(() => decode(blendActivityProof, new Uint8Array([1, 1, 2])), {
      code: 'DECODE_ERROR',
      message: /unexpected end of input/,
    });
  });
});

describe('SDP activity proof format (core/src/sdp/blend.rs)', () => {
  test('the signing key of an activity proof must be a valid Ed25519 public key', () => {
    const fill = (n: number, v: number) => new Uint8Array(n).fill(v);
    const proof: BlendActivityProof = {
      epoch: 10,
      signing_key: new Ed25519Signer(new Uint8Array(32)).publicKey,
      proof_of_quota: {
        key_nullifier: 0n,
        proof: { pi_a: fill(32, 0), pi_b: fill(64, 0), pi_c: fill(32, 0) },
      },
      proof_of_selection: { selection_randomness: 1n },
    };
    const bytes = encode(blendActivityProof, proof);
    assert.deepEqual(decode(blendActivityProof, bytes), proof);
    // y = 2 decompresses to no curve point: not a key (dalek's `VerifyingKey::from_bytes`).
    bytes.set(fill(32, 0), 1 + 4);
    bytes[5] = 2;
    assert.throws(() => decode(blendActivityProof, bytes), /Ed25519 public key/);
    // The identity (y = 1, small order) decompresses, so dalek takes it as a key.
    bytes[5] = 1;
    assert.doesNotThrow(() => decode(blendActivityProof, bytes));
  });
});

describe('SDP service parameters (core/src/sdp/mod.rs, nodes/node/binary/src/config/deployment/settings.yaml)', () => {
  const devnet = readFileSync(new URL('../../deployments/devnet.yaml', import.meta.url), 'utf8');

  test('inactivity_period must be at least SNAPSHOT_FINALIZATION_DELAY (core/src/sdp/mod.rs InactivityPeriod)', () => {
    assert.throws(
      () =>
        parseDeployment(
          devnet.replace('  inactivity_period: 2\n', '  inactivity_period: 1\n'),
          'devnet.yaml',
        ),
      /sdp\.inactivity_period/,
    );
    assert.equal(parseDeployment(devnet, 'devnet.yaml').ledger.sdp.inactivity_period, 2);
  });

  test('Blend reward parameters default to the reference deployment settings', () => {
    // The devnet's own blend section left out: the reference deployment's values apply.
    const p = parseDeployment(devnet.replace(/^blend:\n(?: .*\n)+/m, ''), 'devnet.yaml').ledger.sdp
      .blend_rewards;
    assert.deepEqual(p, {
      rounds_per_epoch: null,
      message_frequency_per_round: 1,
      num_blend_layers: 1n,
      data_replication_factor: 1n,
      minimum_network_size: 2n,
      activity_threshold_sensitivity: 1n,
    });
    assert.equal(resolveBlendRewardParams(p, 36_000n).rounds_per_epoch, 36_000n);
    const custom = parseDeployment(
      devnet.replace(
        '  inactivity_period: 2\n',
        '  inactivity_period: 2\n  blend_rewards: { rounds_per_epoch: 10, num_blend_layers: 3, minimum_network_size: 1 }\n',
      ),
      'devnet.yaml',
    ).ledger.sdp.blend_rewards;
    assert.equal(custom.rounds_per_epoch, 10n);
    assert.equal(custom.num_blend_layers, 3n);
    assert.equal(custom.minimum_network_size, 1n);
  });
});

describe('GET /mantle/sdp/snapshot (services/chain/chain-service/src/service/mod.rs GetSdpSnapshot)', () => {
  test("serves the tip epoch state's frozen active set; /mantle/sdp/declarations serves every declaration", async () => {
    const route = (id: string) => ROUTES.find((r) => r.operationId === id)!;
    const l = new SdpLedger(setupConfig(2));
    const serve = async (id: string) => {
      const state = l.draft.state();
      const ctx = { chain: { tip: () => ({ state }) } } as unknown as ApiContext;
      const reply = (await route(id).handle(ctx, { params: {}, query: {} as never })) as { body: string };
      return Object.keys(JSON.parse(reply.body) as object);
    };
    l.advanceTo(1);
    const id = l.declare(declareOpOf(l.note(), ZK1));
    l.advanceTo(2);
    // Declared in epoch 1: the active set of epoch 2 was frozen at the change to epoch 1.
    assert.deepEqual(await serve('sdpDeclarations'), [id]);
    assert.deepEqual(await serve('sdpSnapshot'), []);
    l.advanceTo(3);
    assert.deepEqual(await serve('sdpSnapshot'), [id]);
  });
});
