/**
 * Proposals on the wire: round trips, the size bound checked before decoding, trailing bytes, the header
 * checked on its own, reconstruction against a prefix index, and fuzzing (random bytes and mutated valid
 * proposals give a typed error or a proposal, never anything else).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Block, blockBodyRoot } from '../../../../src/block/block.ts';
import { encodeHeader, type Header, type SignedHeader } from '../../../../src/block/header.ts';
import { bytesToHex } from '../../../../src/codec/hex.ts';
import { Ed25519Signer } from '../../../../src/crypto/ed25519.ts';
import { type SignedMantleTx, txHash } from '../../../../src/mantle/tx.ts';
import { WireError } from '../../../../src/network/wire/errors.ts';
import {
  decodeProposal,
  encodeProposal,
  MAX_PROPOSAL_BYTES,
  reconstruct,
  toProposal,
  txHashPrefixOf,
  verifyHeaderAlone,
} from '../../../../src/network/wire/proposal.ts';
import { ProposalError } from '../../../../src/network/wire/proposal-errors.ts';
import { filled, SAMPLE_OPS, sampleSignedTx, seq } from '../../../mocks/fixtures.ts';
import { xorshift32 } from '../../../utils/prng.ts';

const KEY = new Ed25519Signer(filled(32, 5));
const OTHER = new Ed25519Signer(filled(32, 6));
const PROOF = { proof: seq(128, 1), entropy_contribution: 5n, leader_key: KEY.publicKey, voucher_cm: 9n };
const TXS: SignedMantleTx[] = [sampleSignedTx(), sampleSignedTx(SAMPLE_OPS.slice(0, 2)), sampleSignedTx([])];

function uncle(slot: bigint): SignedHeader {
  const header: Header = {
    parent_block: filled(32, 3),
    slot,
    body_root: filled(32, 4),
    proof_of_leadership: PROOF,
  };
  return { header, signature: KEY.sign(encodeHeader(header)) };
}

function makeBlock(slot = 10n, uncles: SignedHeader[] = [uncle(8n)], txs = TXS, key = KEY): Block {
  const header: Header = {
    parent_block: filled(32, 1),
    slot,
    body_root: blockBodyRoot({ uncle_headers: uncles, transactions: txs }),
    proof_of_leadership: PROOF,
  };
  return { header, signature: key.sign(encodeHeader(header)), uncle_headers: uncles, transactions: txs };
}

/** A prefix index over some transactions, as the mempool's. */
function index(txs: SignedMantleTx[]) {
  const m = new Map<string, SignedMantleTx[]>();
  for (const t of txs) {
    const k = bytesToHex(txHashPrefixOf(txHash(t.mantle_tx)));
    m.set(k, [...(m.get(k) ?? []), t]);
  }
  return (p: Uint8Array) => m.get(bytesToHex(p)) ?? [];
}

test('a proposal round-trips and rebuilds its block from the prefix index', () => {
  const block = makeBlock();
  const bytes = encodeProposal(toProposal(block));
  assert.equal(bytes.length, 297 + 1 + 361 + 2 + 3 * 16 + 64);
  const p = decodeProposal(bytes);
  verifyHeaderAlone(p.header, p.signature);
  assert.deepEqual(reconstruct(p, index(TXS)), block);
});

test('a proposal over the maximum size is refused before decoding', () => {
  assert.throws(
    () => decodeProposal(new Uint8Array(MAX_PROPOSAL_BYTES + 1)),
    (e) => e instanceof WireError && e.code === 'WIRE_TOO_LARGE' && e.meta.size === MAX_PROPOSAL_BYTES + 1,
  );
});

test('trailing bytes, a short message and too many uncles are refused', () => {
  const bytes = encodeProposal(toProposal(makeBlock()));
  const long = new Uint8Array(bytes.length + 1);
  long.set(bytes);
  for (const bad of [long, bytes.subarray(0, bytes.length - 1), new Uint8Array(0)]) {
    assert.throws(
      () => decodeProposal(bad),
      (e) => e instanceof WireError && e.code === 'WIRE_MALFORMED',
    );
  }
  const fiveUncles = bytes.slice();
  fiveUncles[297] = 5;
  assert.throws(
    () => decodeProposal(fiveUncles),
    (e) => e instanceof WireError && e.code === 'WIRE_MALFORMED',
  );
});

test('the header alone: a wrong signer and the genesis slot are refused', () => {
  const forged = makeBlock(10n, [], [], OTHER);
  assert.throws(
    () => verifyHeaderAlone(forged.header, forged.signature),
    (e) =>
      e instanceof ProposalError && e.code === 'PROPOSAL_INVALID_HEADER' && e.meta.reason === 'Signature',
  );
  const genesis = makeBlock(0n, [], []);
  assert.throws(
    () => verifyHeaderAlone(genesis.header, genesis.signature),
    (e) => e instanceof ProposalError && e.meta.reason === 'GenesisSlot',
  );
});

test('references that do not make the committed body are refused', () => {
  const block = makeBlock();
  const p = toProposal(block);
  // Reordered references: each resolves, the body root does not match.
  const swapped = { ...p, references: [p.references[1]!, p.references[0]!, p.references[2]!] };
  assert.throws(
    () => reconstruct(swapped, index(TXS)),
    (e) => e instanceof ProposalError && e.code === 'PROPOSAL_NO_MATCHING_RECONSTRUCTION',
  );
  // A dropped uncle.
  assert.throws(
    () => reconstruct({ ...p, uncle_headers: [] }, index(TXS)),
    (e) => e instanceof ProposalError && e.code === 'PROPOSAL_NO_MATCHING_RECONSTRUCTION',
  );
  // A missing transaction.
  assert.throws(
    () => reconstruct(p, index(TXS.slice(1))),
    (e) => e instanceof ProposalError && e.code === 'PROPOSAL_UNRESOLVED_REFERENCE' && e.meta.index === 0,
  );
});

/** Decodes, checks and rebuilds as a receiver does; anything thrown must be a WireError or a ProposalError. */
/** Receives bytes as a proposal: 'block' when they make one, else the typed error's code (any other error is thrown). */
function receive(bytes: Uint8Array, lookup: (p: Uint8Array) => readonly SignedMantleTx[]): string {
  try {
    const p = decodeProposal(bytes);
    verifyHeaderAlone(p.header, p.signature);
    reconstruct(p, lookup);
    return 'block';
  } catch (e) {
    if (!(e instanceof WireError || e instanceof ProposalError))
      throw new Error(`not a typed error: ${(e as Error).stack}`);
    return e.code;
  }
}

test('fuzz: random bytes give typed errors', () => {
  const next = xorshift32(0xbeef);
  const lookup = index(TXS);
  const codes = new Set<string>();
  for (let i = 0; i < 3000; i++) {
    const len = next() % (i % 10 === 0 ? MAX_PROPOSAL_BYTES + 100 : 1200);
    const b = new Uint8Array(len);
    for (let j = 0; j < len; j++) b[j] = next() & 0xff;
    // Valid version byte and small counts sometimes, to reach deeper fields.
    if (len > 0 && i % 2 === 0) b[0] = 1;
    codes.add(receive(b, lookup));
  }
  // Random bytes never make a block (no valid leader signature), and are refused for several reasons.
  assert.equal(codes.has('block'), false);
  assert.ok(codes.size >= 2, `refusals: ${[...codes].join(', ')}`);
});

test('fuzz: mutated valid proposals give typed errors or a proposal', () => {
  const next = xorshift32(0x5eed);
  const lookup = index(TXS);
  const valid = encodeProposal(toProposal(makeBlock()));
  assert.equal(receive(valid, lookup), 'block');
  const outcomes = new Set<string>();
  for (let i = 0; i < 3000; i++) {
    let b = valid.slice();
    const kind = next() % 4;
    if (kind === 0) {
      for (let k = 1 + (next() % 4); k > 0; k--) b[next() % b.length] = next() & 0xff;
    } else if (kind === 1) {
      b = b.subarray(0, next() % b.length);
    } else if (kind === 2) {
      const extra = new Uint8Array(b.length + 1 + (next() % 40));
      extra.set(b);
      b = extra;
    } else {
      // The counts: uncles (offset 297) and references (after the uncle).
      const at = next() % 2 === 0 ? 297 : 297 + 1 + 361;
      b[at] = next() & 0xff;
    }
    outcomes.add(receive(b, lookup));
  }
  // Most mutations are refused, for more than one reason.
  assert.ok([...outcomes].filter((o) => o !== 'block').length >= 2, `outcomes: ${[...outcomes].join(', ')}`);
});
