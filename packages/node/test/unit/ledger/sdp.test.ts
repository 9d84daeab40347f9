/** SDP operations on the ledger (src/ledger/sdp.ts, sdp-rewards.ts): declarations, activity, withdrawals, rewards. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { keyNullifierOf, selectionIndex } from '../../../src/crypto/blend/selection.ts';
import { Ed25519Signer } from '../../../src/crypto/ed25519.ts';
import { checkTx } from '../../../src/ledger/apply.ts';
import { blendingTokenBytes, tokenDistance } from '../../../src/ledger/sdp-rewards.ts';
import { noteId } from '../../../src/mantle/note.ts';
import { type Op, Opcode } from '../../../src/mantle/ops.ts';
import { declarationId } from '../../../src/mantle/sdp.ts';
import { insecureTestPoqProofOf, insecureTestZkSign } from '../../../src/zk/insecure-test-proofs.ts';
import { declareOp, genesisNotes, newKey, TestChain } from '../../mocks/ledger.ts';
import { EPOCH, rejects, withFee } from './helpers.ts';

describe('SDP', () => {
  const provider = new Ed25519Signer(new Uint8Array(32).fill(24));
  const zk = newKey('sdp-zk');

  test('declare, activity, withdrawal; the service note unlocks after withdraw_at', () => {
    const c = new TestChain();
    const notes = genesisNotes(c.genesis);
    const service = notes[0]!;
    const declare = declareOp(service.id, provider.publicKey, zk.publicKey);
    const declSig = (hash: Uint8Array, msg: bigint, op: Op) =>
      op.opcode === Opcode.SDPDeclare
        ? {
            type: 'ZkAndEd25519Sigs' as const,
            zk_sig: insecureTestZkSign(msg, [service.sk, zk.secretKey]),
            ed25519_sig: provider.sign(hash),
          }
        : undefined;
    // Provider signature must verify.
    const badProvider = withFee(notes[1]!, [declare], [[]], (hash, msg, op) =>
      op.opcode === Opcode.SDPDeclare
        ? {
            type: 'ZkAndEd25519Sigs',
            zk_sig: insecureTestZkSign(msg, [service.sk, zk.secretKey]),
            ed25519_sig: provider.sign(hash.map((x) => x ^ 1)),
          }
        : undefined,
    );
    rejects(() => checkTx(c.state, c.ctx, badProvider, 1n), 'InvalidEd25519Signature');
    // ZK signature must be by [note pk, zk_id].
    const badZk = withFee(notes[1]!, [declare], [[]], (hash, msg, op) =>
      op.opcode === Opcode.SDPDeclare
        ? {
            type: 'ZkAndEd25519Sigs',
            zk_sig: insecureTestZkSign(msg, [zk.secretKey]),
            ed25519_sig: provider.sign(hash),
          }
        : undefined,
    );
    rejects(() => checkTx(c.state, c.ctx, badZk, 1n), 'InvalidZkSignature');

    c.apply([withFee(notes[1]!, [declare], [[]], declSig)]);
    const id = bytesToHex(declarationId(declare.payload as Extract<Op, { opcode: 32 }>['payload']));
    const d = c.state.sdp.declarations.get(id)!;
    assert.equal(d.created, 0);
    assert.equal(d.active, 2);
    assert.equal(d.nonce, 0n);
    assert.equal(c.state.notes.get(service.id)?.locked_by, id);
    // A locked note cannot be spent, nor declared twice.
    rejects(() => checkTx(c.state, c.ctx, withFee(service, [], []), c.state.slot + 1n), 'InputLocked');
    rejects(
      () => checkTx(c.state, c.ctx, withFee(notes[2]!, [declare], [[]], declSig), c.state.slot + 1n),
      'DuplicateDeclaration',
    );

    // Activity in epoch 1: nonce must increase.
    c.advanceTo(EPOCH + 5n, 50n);
    const active = (nonce: bigint): Op => ({
      opcode: Opcode.SDPActive,
      payload: {
        declaration_id: declarationId(declare.payload as Extract<Op, { opcode: 32 }>['payload']),
        nonce,
        metadata: {
          Blend: {
            epoch: 1,
            signing_key: provider.publicKey,
            proof_of_quota: {
              key_nullifier: 1n,
              proof: { pi_a: new Uint8Array(32), pi_b: new Uint8Array(64), pi_c: new Uint8Array(32) },
            },
            proof_of_selection: { selection_randomness: 2n },
          },
        },
      },
    });
    rejects(
      () => checkTx(c.state, c.ctx, withFee(notes[3]!, [active(0n)], [[zk.secretKey]]), c.state.slot + 1n),
      'InvalidNonce',
    );
    // Epoch 0 had no Blend provider, so no target epoch takes activity proofs in epoch 1 and the
    // activity message is refused (ledger/src/mantle/sdp/rewards/blend/mod.rs).
    rejects(
      () => checkTx(c.state, c.ctx, withFee(notes[3]!, [active(1n)], [[zk.secretKey]]), c.state.slot + 1n),
      'TargetEpochNotSet',
    );

    // Withdraw in epoch 1: withdraw_at = 3; the note unlocks at the change to epoch 3.
    const withdraw: Op = {
      opcode: Opcode.SDPWithdraw,
      payload: {
        declaration_id: declarationId(declare.payload as Extract<Op, { opcode: 32 }>['payload']),
        nonce: 1n,
        service_note_id: service.id,
      },
    };
    rejects(
      () =>
        checkTx(
          c.state,
          c.ctx,
          withFee(
            notes[4]!,
            [{ ...withdraw, payload: { ...withdraw.payload, service_note_id: notes[5]!.id } } as Op],
            [[service.sk, zk.secretKey]],
          ),
          c.state.slot + 1n,
        ),
      'NoteNotLockedForService',
    );
    c.apply([withFee(notes[4]!, [withdraw], [[service.sk, zk.secretKey]])]);
    assert.equal(c.state.sdp.declarations.get(id)?.withdraw_at, 3);
    rejects(
      () =>
        checkTx(
          c.state,
          c.ctx,
          withFee(notes[5]!, [withdraw], [[service.sk, zk.secretKey]]),
          c.state.slot + 1n,
        ),
      'DeclarationWithdrawn',
    );

    c.advanceTo(3n * EPOCH - 1n, 50n);
    assert.equal(c.state.notes.get(service.id)?.locked_by, id);
    const r = c.apply([], 3n * EPOCH + 1n);
    const unlocked = r.events.find((e) => e.kind === 'Header' && e.event.type === 'SdpNoteUnlocked');
    assert.ok(unlocked, 'an SdpNoteUnlocked event');
    assert.equal(c.state.notes.get(service.id)?.locked_by, null);
    assert.equal(c.state.sdp.declarations.has(id), false);
  });

  test('blend income of epoch 2 is paid at the change to epoch 4 to the providers that proved activity in epoch 3', () => {
    const c = new TestChain();
    const notes = genesisNotes(c.genesis);
    // Two providers: the devnet's minimum_network_size is 2.
    const providers = [
      {
        signer: provider,
        zk: newKey('sdp-zk-2'),
        note: notes[0]!,
        locator: '/ip4/10.0.0.1/udp/3000/quic-v1',
      },
      {
        signer: new Ed25519Signer(new Uint8Array(32).fill(25)),
        zk: newKey('sdp-zk-3'),
        note: notes[1]!,
        locator: '/ip4/10.0.0.2/udp/3000/quic-v1',
      },
    ];
    const ids: Uint8Array[] = [];
    for (const [i, p] of providers.entries()) {
      const declare = declareOp(p.note.id, p.signer.publicKey, p.zk.publicKey, p.locator);
      ids.push(declarationId(declare.payload as Extract<Op, { opcode: 32 }>['payload']));
      c.apply([
        withFee(notes[2 + i]!, [declare], [[]], (hash, msg, op) =>
          op.opcode === Opcode.SDPDeclare
            ? {
                type: 'ZkAndEd25519Sigs',
                zk_sig: insecureTestZkSign(msg, [p.note.sk, p.zk.secretKey]),
                ed25519_sig: p.signer.sign(hash),
              }
            : undefined,
        ),
      ]);
    }
    // Declared in epoch 0: active from epoch 2. Epoch 2 becomes the target epoch at the change to 3.
    c.advanceTo(3n * EPOCH - 1n, 40n);
    const income = c.state.sdp.rewards.current_income;
    assert.ok(income > 0n);
    c.apply([], 3n * EPOCH);
    assert.equal(c.state.sdp.rewards.target?.epoch, 2);
    assert.equal(c.state.sdp.rewards.target?.income, income);
    // Each provider proves a blending token of epoch 2: its proof of selection designates its own
    // index (providers sorted by zk id) and the token is close enough to epoch 3's randomness.
    const target = c.state.sdp.rewards.target!;
    const nonce = c.state.sdp.rewards.current_nonce;
    const proofFor = (zkId: bigint) => {
      const index = BigInt(target.providers.findIndex((p) => p.zk_id === zkId));
      for (let r = 1n; ; r++) {
        const proof = {
          epoch: 2,
          signing_key: provider.publicKey,
          proof_of_quota: {
            key_nullifier: keyNullifierOf(r),
            proof: insecureTestPoqProofOf(
              { ...target.poq, signing_key: provider.publicKey },
              keyNullifierOf(r),
            ),
          },
          proof_of_selection: { selection_randomness: r },
        };
        if (
          selectionIndex(r, 2n) === index &&
          tokenDistance(blendingTokenBytes(proof), target.token_count_byte_len, nonce) <=
            target.activity_threshold
        )
          return proof;
      }
    };
    // A proof of quota that does not verify (made for another core root) refuses the transaction.
    const forged = proofFor(providers[0]!.zk.publicKey);
    const badPoq = insecureTestPoqProofOf(
      { ...target.poq, core: { ...target.poq.core, zk_root: 1n }, signing_key: provider.publicKey },
      forged.proof_of_quota.key_nullifier,
    );
    const forgedOp: Op = {
      opcode: Opcode.SDPActive,
      payload: {
        declaration_id: ids[0]!,
        nonce: 1n,
        metadata: { Blend: { ...forged, proof_of_quota: { ...forged.proof_of_quota, proof: badPoq } } },
      },
    };
    rejects(
      () =>
        checkTx(
          c.state,
          c.ctx,
          withFee(notes[4]!, [forgedOp], [[providers[0]!.zk.secretKey]]),
          c.state.slot + 1n,
        ),
      'InvalidActivityProof',
    );
    for (const [i, p] of providers.entries()) {
      const active: Op = {
        opcode: Opcode.SDPActive,
        payload: { declaration_id: ids[i]!, nonce: 1n, metadata: { Blend: proofFor(p.zk.publicKey) } },
      };
      c.apply([withFee(notes[4 + i]!, [active], [[p.zk.secretKey]])]);
      assert.equal(c.state.sdp.declarations.get(bytesToHex(ids[i]!))?.active, 3);
    }
    c.advanceTo(4n * EPOCH - 1n, 40n);
    const r = c.apply([], 4n * EPOCH);
    const paid = r.events.flatMap((e) =>
      e.kind === 'Header' && e.event.type === 'SdpRewardDistributed' ? [e.event.utxo] : [],
    );
    assert.equal(paid.length, 2);
    const byPk = new Map(paid.map((u) => [u.note.pk, u.note.value]));
    const total = paid.reduce((a, u) => a + u.note.value, 0n);
    assert.ok(total <= income && total > income - 3n);
    for (const p of providers) assert.ok((byPk.get(p.zk.publicKey) ?? 0n) > 0n);
    for (const u of paid) assert.ok(c.state.notes.has(noteId(u.op_id, u.output_index, u.note)));
  });
});
