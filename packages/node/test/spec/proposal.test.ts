/**
 * Block proposals: the reference's tests of proposals (core/src/block/mod.rs) and of their
 * reconstruction and application (services/chain/chain-network/src/lib.rs), with their literal values.
 * The reference builds a real proof of leadership; nothing here looks at the proof, so a fixed 128-byte
 * proof stands in for it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Block, blockBodyRoot, MAX_BLOCK_TRANSACTIONS } from '../../src/block/block.ts';
import { encodeHeader, type Header, type SignedHeader } from '../../src/block/header.ts';
import { BlockRejected } from '../../src/chain/index.ts';
import { Writer } from '../../src/codec/binary.ts';
import { Ed25519Signer } from '../../src/crypto/ed25519.ts';
import { type SignedMantleTx, txHash } from '../../src/mantle/tx.ts';
import { applyWithFutureBlockRetry } from '../../src/network/gossip/index.ts';
import { WireError } from '../../src/network/wire/errors.ts';
import {
  decodeProposal,
  encodeProposal,
  MAX_PROPOSAL_BYTES,
  type Proposal,
  REFERENCE_PREFIX_BYTES,
  reconstruct,
  toProposal,
} from '../../src/network/wire/proposal.ts';
import { ProposalError } from '../../src/network/wire/proposal-errors.ts';
import { filled, SAMPLE_OPS, sampleSignedTx, seq } from '../mocks/fixtures.ts';

const KEY = new Ed25519Signer(filled(32, 0));
const PROOF = { proof: seq(128, 3), entropy_contribution: 77n, leader_key: KEY.publicKey, voucher_cm: 0n };
/** `RawMantleTx(Ops::new_unchecked(vec![]))`. */
const EMPTY_TX: SignedMantleTx = { mantle_tx: { ops: [] }, ops_proofs: [] };

function create(slot: bigint, uncle_headers: SignedHeader[], transactions: SignedMantleTx[]): Block {
  const header: Header = {
    parent_block: filled(32, 0),
    slot,
    body_root: blockBodyRoot({ uncle_headers, transactions }),
    proof_of_leadership: PROOF,
  };
  return { header, signature: KEY.sign(encodeHeader(header)), uncle_headers, transactions };
}

function signedUncle(slot: bigint): SignedHeader {
  const header: Header = {
    parent_block: filled(32, 9),
    slot,
    body_root: filled(32, 9),
    proof_of_leadership: PROOF,
  };
  return { header, signature: KEY.sign(encodeHeader(header)) };
}

// ---------- core/src/block/mod.rs ----------

test('proposal_references_preserve_transaction_hash_prefixes_and_order (core/src/block/mod.rs)', () => {
  // The reference's test transactions hash to [index; 32]; three transactions with distinct hashes
  // stand in for them.
  const txs = [EMPTY_TX, sampleSignedTx(), sampleSignedTx(SAMPLE_OPS.slice(0, 1))];
  const expected = txs.map((t) => txHash(t.mantle_tx).subarray(0, REFERENCE_PREFIX_BYTES));
  const proposal = toProposal(create(42n, [], txs));
  assert.deepEqual(proposal.references, expected);
  assert.deepEqual(decodeProposal(encodeProposal(proposal)).references, expected);
});

test('proposal_accepts_maximum_transaction_references (core/src/block/mod.rs)', () => {
  const block = create(42n, [], Array(MAX_BLOCK_TRANSACTIONS).fill(EMPTY_TX));
  const proposal = toProposal(block);
  assert.equal(proposal.references.length, MAX_BLOCK_TRANSACTIONS);
  assert.equal(decodeProposal(encodeProposal(proposal)).references.length, MAX_BLOCK_TRANSACTIONS);
});

test('proposal_deserialization_rejects_excess_transaction_references (core/src/block/mod.rs)', () => {
  // The reference writes the references of 1025 default prefixes with their count and decodes it as a
  // Proposal; here the wire form (u16 count) carries 1025 of them.
  const proposal = toProposal(create(42n, [], []));
  const head = encodeProposal(proposal);
  const headerAndUncles = head.subarray(0, 297 + 1);
  const w = new Writer(20_000);
  w.bytes(headerAndUncles);
  w.u16(MAX_BLOCK_TRANSACTIONS + 1);
  w.bytes(new Uint8Array((MAX_BLOCK_TRANSACTIONS + 1) * REFERENCE_PREFIX_BYTES));
  w.bytes(proposal.signature);
  const bytes = w.finish();
  assert.throws(
    () => decodeProposal(bytes),
    (e) => e instanceof WireError && /1025|maximum/.test(e.message),
  );
});

test('maximum_proposal_matches_the_specified_size (core/src/block/mod.rs)', () => {
  const SPECIFIED_MAX_PROPOSAL_SIZE = 18_192;
  const uncle = signedUncle(1n);
  const proposal = toProposal(
    create(42n, [uncle, uncle, uncle, uncle], Array(MAX_BLOCK_TRANSACTIONS).fill(EMPTY_TX)),
  );
  assert.equal(MAX_PROPOSAL_BYTES, SPECIFIED_MAX_PROPOSAL_SIZE);
  assert.equal(encodeProposal(proposal).length, SPECIFIED_MAX_PROPOSAL_SIZE);
  assert.deepEqual(decodeProposal(encodeProposal(proposal)), proposal);
});

// ---------- services/chain/chain-network/src/lib.rs ----------

/** Transactions as the reference's `HashOnlyTx`: what a lookup answers for any prefix. */
function fixedCandidates(txs: SignedMantleTx[]) {
  return () => txs;
}

function proposalWith(refs: Uint8Array[]): Proposal {
  const p = toProposal(create(42n, [], []));
  return { ...p, references: refs };
}

test('a_reference_resolves_to_its_one_matching_transaction (services/chain/chain-network/src/lib.rs)', () => {
  const block = create(42n, [], [EMPTY_TX]);
  const rebuilt = reconstruct(toProposal(block), fixedCandidates([EMPTY_TX]));
  assert.deepEqual(rebuilt, block);
});

test('a_reference_matching_nothing_locally_is_unresolved (services/chain/chain-network/src/lib.rs)', () => {
  const prefix = filled(16, 7);
  const refs = [filled(16, 1), filled(16, 2), filled(16, 3), prefix];
  let calls = 0;
  assert.throws(
    () =>
      reconstruct(proposalWith(refs), (p) => {
        calls++;
        return p[0] === 7 ? [] : [EMPTY_TX];
      }),
    (e) =>
      e instanceof ProposalError &&
      e.code === 'PROPOSAL_UNRESOLVED_REFERENCE' &&
      e.meta.index === 3 &&
      e.meta.prefix === '07'.repeat(16),
  );
  assert.equal(calls, 4);
});

test('a_reference_matching_two_transactions_is_not_searched (services/chain/chain-network/src/lib.rs)', () => {
  const prefix = filled(16, 0xaa);
  const other = { mantle_tx: { ops: [] }, ops_proofs: [] } as SignedMantleTx;
  assert.throws(
    () =>
      reconstruct(proposalWith([filled(16, 1), prefix]), (p) =>
        p[0] === 0xaa ? [EMPTY_TX, other] : [EMPTY_TX],
      ),
    (e) =>
      e instanceof ProposalError &&
      e.code === 'PROPOSAL_COLLIDING_REFERENCE' &&
      e.meta.index === 1 &&
      e.meta.prefix === 'aa'.repeat(16),
  );
});

const futureBlockError = () =>
  new BlockRejected('BLOCK_FUTURE', 'block slot 2 is after the current slot 1', {
    meta: { slot: 2n, boundSlot: 1n },
  });

test('retry_future_block_apply_retries_until_success (services/chain/chain-network/src/lib.rs)', async () => {
  let attempts = 0;
  const r = await applyWithFutureBlockRetry(
    async () => {
      const attempt = attempts++;
      if (attempt < 2) throw futureBlockError();
      return 'ok';
    },
    3,
    0,
  );
  assert.equal(r, 'ok');
  assert.equal(attempts, 3);
});

test('retry_future_block_apply_returns_last_future_block_after_exhausting_retries (services/chain/chain-network/src/lib.rs)', async () => {
  let attempts = 0;
  await assert.rejects(
    applyWithFutureBlockRetry(
      async () => {
        attempts++;
        throw futureBlockError();
      },
      2,
      0,
    ),
    (e) => e instanceof BlockRejected && e.code === 'BLOCK_FUTURE',
  );
  assert.equal(attempts, 3);
});

test('retry_future_block_apply_does_not_retry_non_future_block_errors (services/chain/chain-network/src/lib.rs)', async () => {
  let attempts = 0;
  await assert.rejects(
    applyWithFutureBlockRetry(
      async () => {
        attempts++;
        throw new BlockRejected('BLOCK_INVALID', 'non-future-block errors should fail immediately');
      },
      3,
      0,
    ),
    (e) => e instanceof BlockRejected && e.code === 'BLOCK_INVALID',
  );
  assert.equal(attempts, 1);
});
