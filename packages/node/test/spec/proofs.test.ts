/**
 * The reference's channel multi-signature proof tests (core/src/proofs/channel_multi_sig_proof.rs).
 * `ChannelMultiSigProof::try_new` has no counterpart here (proofs are plain values): its checks
 * are those of our JSON and binary decoders, which the ported tests exercise.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJson, stringifyJson } from '@logos-ts/shared/json';
import { Reader, Writer } from '../../src/codec/binary.ts';
import { bytesToHex } from '../../src/codec/hex.ts';
import {
  type IndexedSignature,
  proofFromJson,
  proofToJson,
  readProof,
  writeProof,
} from '../../src/mantle/proofs.ts';

const F = '(core/src/proofs/channel_multi_sig_proof.rs)';
const sig = (b: number) => new Uint8Array(64).fill(b);
const indexed = (...pairs: [number, number][]): IndexedSignature[] =>
  pairs.map(([i, b]) => ({ channel_key_index: i, signature: sig(b) }));
const json = (signatures: IndexedSignature[]) => ({
  ChannelMultiSigProof: {
    signatures: signatures.map((s) => ({
      signature: bytesToHex(s.signature),
      channel_key_index: s.channel_key_index,
    })),
  },
});
function encoded(signatures: IndexedSignature[]): Uint8Array {
  const w = new Writer(256);
  writeProof(w, { type: 'ChannelMultiSigProof', signatures });
  return w.finish();
}
const decoded = (bytes: Uint8Array) => readProof(new Reader(bytes), 'ChannelMultiSigProof');

test(`rejects_repeated_index ${F}`, () => {
  assert.throws(() => proofFromJson(json(indexed([0, 1], [0, 2]))), /strictly increasing/);
});

test(`rejects_unsorted_indices ${F}`, () => {
  assert.throws(() => proofFromJson(json(indexed([1, 1], [0, 2]))), /strictly increasing/);
});

test(`accepts_strictly_increasing_indices ${F}`, () => {
  const p = proofFromJson(json(indexed([0, 1], [1, 2])));
  assert.equal(p.type === 'ChannelMultiSigProof' && p.signatures.length, 2);
});

test(`deserialize_rejects_non_monotonic_indices ${F}`, () => {
  assert.throws(
    () => proofFromJson(parseJson(stringifyJson(json(indexed([0, 1], [0, 2]))))),
    /strictly increasing/,
  );
  const ok = { type: 'ChannelMultiSigProof' as const, signatures: indexed([0, 1], [1, 2]) };
  const text = stringifyJson(proofToJson(ok));
  assert.ok(text.startsWith('{"ChannelMultiSigProof":{"signatures":'));
  assert.deepEqual(proofFromJson(parseJson(text)), ok);
});

test(`decode_rejects_repeated_index ${F}`, () => {
  assert.throws(() => decoded(encoded(indexed([0, 1], [0, 2]))), /strictly increasing/);
});

test(`decode_rejects_out_of_order_indices ${F}`, () => {
  assert.throws(() => decoded(encoded(indexed([1, 1], [0, 2]))), /strictly increasing/);
});
