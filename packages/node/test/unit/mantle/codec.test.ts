import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Json, parseJson, stringifyJson } from '@logos-ts/shared/json';
import { DecodeError } from '../../../src/codec/errors.ts';
import { bytesToHex, concatBytes } from '../../../src/codec/hex.ts';
import { decode, encode } from '../../../src/codec/schema.ts';
import { FR_MODULUS, frToBytes } from '../../../src/crypto/field.ts';
import { locatorToString } from '../../../src/mantle/locator.ts';
import { OPCODE_NAMES, type Op, Opcode, op } from '../../../src/mantle/ops.ts';
import { proofFromJson, proofToJson } from '../../../src/mantle/proofs.ts';
import {
  decodeSignedTx,
  encodeMantleTx,
  encodeSignedTx,
  mantleTx,
  type SignedMantleTx,
  signedMantleTx,
  signedTxToApiJson,
} from '../../../src/mantle/tx.ts';
import {
  filled,
  le64,
  PROVIDER_PK,
  SAMPLE_OPS,
  SIMPLE_TRANSFER,
  sampleProof,
  sampleSignedTx,
  seq,
  U64_MAX,
} from '../../mocks/fixtures.ts';

function reencodeJson<T>(codec: { toJson(v: T): Json; fromJson(j: Json | undefined): T }, v: T): T {
  return codec.fromJson(parseJson(stringifyJson(codec.toJson(v))));
}

describe('every opcode round-trips', () => {
  for (const sample of SAMPLE_OPS) {
    test(`${OPCODE_NAMES[sample.opcode]} (${sample.opcode}) in binary and JSON`, () => {
      const bytes = encode(op, sample);
      assert.equal(bytes[0], sample.opcode);
      assert.deepEqual(decode(op, bytes), sample);
      assert.deepEqual(reencodeJson(op, sample), sample);
      // Binary and JSON forms stay consistent with each other.
      assert.equal(bytesToHex(encode(op, reencodeJson(op, sample))), bytesToHex(bytes));
    });
  }
});

describe('hand-encoded byte layouts (derived from the codec rules, not reference vectors)', () => {
  test('Transfer: opcode ‖ u8 input count ‖ Fr LE ‖ u8 output count ‖ (u64 LE value ‖ Fr pk)', () => {
    const o = SIMPLE_TRANSFER;
    const want = concatBytes(
      Uint8Array.of(0, 1),
      frToBytes(1n),
      Uint8Array.of(1),
      le64(100n),
      frToBytes(456n),
    );
    assert.equal(bytesToHex(encode(op, o)), bytesToHex(want));
  });

  test('ChannelInscribe: the inscription has a u32 length prefix (05000000 for 5 bytes)', () => {
    const o = SAMPLE_OPS.find((x) => x.opcode === Opcode.ChannelInscribe)!;
    const hex = bytesToHex(encode(op, o));
    assert.equal(hex.slice(0, 2), '11');
    assert.equal(hex.slice(2 + 64, 2 + 64 + 8), '05000000');
    assert.equal(hex.slice(2 + 64 + 8, 2 + 64 + 8 + 10), '68656c6c6f');
    assert.equal(hex.length, 2 * (1 + 32 + 4 + 5 + 32 + 32));
  });

  test('ChannelConfig: keys have a u16 count; u32 timeframe/timeout and u16 thresholds follow', () => {
    const o = SAMPLE_OPS.find((x) => x.opcode === Opcode.ChannelConfig)!;
    const bytes = encode(op, o);
    assert.equal(bytes.length, 1 + 32 + 32 + 2 + 2 * 32 + 4 + 4 + 2 + 2);
    assert.deepEqual([...bytes.subarray(65, 67)], [2, 0]);
    assert.deepEqual(
      [...bytes.subarray(bytes.length - 12)],
      [10, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1, 0, 2, 0],
    );
  });

  test('SDPDeclare: service type byte 0, u8 locator count, u16 locator length, multiaddr bytes', () => {
    const o = SAMPLE_OPS.find((x) => x.opcode === Opcode.SDPDeclare)!;
    const hex = bytesToHex(encode(op, o));
    // /ip4/127.0.0.1/udp/3000/quic-v1 = 04 7f000001 91 02 0bb8 cd03 (11 bytes)
    assert.equal(hex.slice(0, 10), '2000010b00');
    assert.equal(hex.slice(10, 32), '047f00000191020bb8cd03');
    assert.equal(hex.slice(32, 96), bytesToHex(PROVIDER_PK));
    assert.equal(hex.length, 2 * (1 + 1 + 1 + 2 + 11 + 32 + 32 + 32));
  });

  test('SDPActive: metadata is 0x01 ‖ version 0x01 ‖ epoch ‖ key ‖ PoQ (Fr ‖ 128 B proof) ‖ PoS (Fr)', () => {
    const o = SAMPLE_OPS.find((x) => x.opcode === Opcode.SDPActive)!;
    const bytes = encode(op, o);
    assert.equal(bytes.length, 1 + 32 + 8 + 1 + 1 + 4 + 32 + 32 + 128 + 32);
    assert.deepEqual([...bytes.subarray(41, 47)], [1, 1, 7, 0, 0, 0]);
  });

  test('ClaimPowReward JSON: block_hash is an array of 32 integers, Fr fields are LE hex', () => {
    const o = SAMPLE_OPS.find((x) => x.opcode === Opcode.ClaimPowReward)!;
    const j = op.toJson(o) as { payload: { block_hash: number[]; epoch_nonce: string } };
    assert.deepEqual(j.payload.block_hash, [...seq(32, 200)]);
    assert.equal(j.payload.epoch_nonce, `12${'00'.repeat(31)}`);
  });

  test('the empty transaction encodes to 00', () => {
    assert.equal(bytesToHex(encodeMantleTx({ ops: [] })), '00');
    assert.equal(bytesToHex(encodeSignedTx({ mantle_tx: { ops: [] }, ops_proofs: [] })), '00');
  });

  test('signed tx: proofs follow the ops untagged, sized by their op', () => {
    const tx = sampleSignedTx();
    const bytes = encodeSignedTx(tx);
    const opsLen = encodeMantleTx(tx.mantle_tx).length;
    // ZkSig 128, MultiSig 2+2*66, Ed 64, ZkSig, MultiSig, MultiSig, ZkAndEd 192, ZkSig, ZkSig, PoC 128, None 0
    const proofs = 128 + 134 + 64 + 128 + 134 + 134 + 192 + 128 + 128 + 128 + 0;
    assert.equal(bytes.length, opsLen + proofs);
  });
});

describe('JSON forms', () => {
  test('a signed transaction in the API form', () => {
    const tx = sampleSignedTx([SAMPLE_OPS[0]!]);
    const text = stringifyJson(signedTxToApiJson(tx));
    assert.match(text, /^\{"mantle_tx":\{"hash":"[0-9a-f]{64}","ops":\[\{"opcode":0,"payload":\{"inputs":\[/);
    assert.ok(text.includes('"outputs":[{"value":100,"pk":"c801'));
    assert.ok(text.includes('{"value":18446744073709551615,"pk":'));
    assert.ok(
      text.endsWith(
        `"ops_proofs":[{"ZkSig":{"pi_a":"${'40'.repeat(32)}","pi_b":"${'41'.repeat(64)}","pi_c":"${'42'.repeat(32)}"}}]}`,
      ),
    );
  });

  test('the smallest valid body parses', () => {
    assert.deepEqual(signedMantleTx.fromJson(parseJson('{"mantle_tx":{"ops":[]},"ops_proofs":[]}')), {
      mantle_tx: { ops: [] },
      ops_proofs: [],
    });
  });

  test('a hash member in input is ignored (unknown members are ignored as serde does)', () => {
    const tx = sampleSignedTx([SAMPLE_OPS[0]!]);
    const withHash = parseJson(stringifyJson(signedTxToApiJson(tx)));
    assert.deepEqual(signedMantleTx.fromJson(withHash), tx);
  });

  test('every proof variant has its tagged form', () => {
    const forms = SAMPLE_OPS.map((o) => stringifyJson(proofToJson(sampleProof(o))));
    assert.ok(forms.includes('{"None":null}'));
    assert.ok(forms.some((f) => f.startsWith('{"Ed25519Sig":"4040')));
    assert.ok(forms.some((f) => f.startsWith('{"PoC":{"proof":"4040')));
    assert.ok(forms.some((f) => f.startsWith('{"ZkAndEd25519Sigs":{"zk_sig":{"pi_a":')));
    assert.ok(forms.some((f) => f.startsWith('{"ChannelMultiSigProof":{"signatures":[{"signature":"4040')));
    for (const o of SAMPLE_OPS) {
      const p = sampleProof(o);
      assert.deepEqual(proofFromJson(parseJson(stringifyJson(proofToJson(p)))), p);
    }
    // `None` is a newtype variant: the bare string is refused (F: core/src/mantle/ops/mod.rs OpProof).
    assert.throws(() => proofFromJson('None'), /expected a proof/);
  });

  test('ZkSig accepts byte arrays on input', () => {
    const j = { ZkSig: { pi_a: Array(32).fill(1), pi_b: Array(64).fill(2), pi_c: Array(32).fill(3) } };
    const p = proofFromJson(j);
    assert.equal(p.type, 'ZkSig');
    assert.deepEqual(proofToJson(p), {
      ZkSig: { pi_a: '01'.repeat(32), pi_b: '02'.repeat(64), pi_c: '03'.repeat(32) },
    });
  });

  test('ids accept 0x on input, never emit it', () => {
    const o = SAMPLE_OPS.find((x) => x.opcode === Opcode.ChannelWithdraw)!;
    const j = op.toJson(o);
    const payload = (j as { payload: { channel_id: string } }).payload;
    payload.channel_id = `0x${payload.channel_id}`;
    const back = op.fromJson(j);
    assert.deepEqual(back, o);
    assert.ok(!stringifyJson(op.toJson(back)).includes('0x'));
  });

  test('locators print as multiaddr text', () => {
    const o = SAMPLE_OPS.find((x) => x.opcode === Opcode.SDPDeclare)! as Extract<Op, { opcode: 32 }>;
    assert.equal(locatorToString(o.payload.locators[0]!), '/ip4/127.0.0.1/udp/3000/quic-v1');
    assert.ok(stringifyJson(op.toJson(o)).includes('"locators":["/ip4/127.0.0.1/udp/3000/quic-v1"]'));
  });
});

describe('malformed input is rejected with the field named', () => {
  const txJson = () =>
    parseJson(stringifyJson(signedMantleTx.toJson(sampleSignedTx()))) as Record<string, Json>;

  function rejectsJson(mutate: (j: Record<string, Json>) => void, pathPattern: RegExp) {
    const j = txJson();
    mutate(j);
    assert.throws(
      () => signedMantleTx.fromJson(j),
      (e: unknown) => e instanceof DecodeError && pathPattern.test(e.message),
    );
  }
  const ops = (j: Record<string, Json>) => (j.mantle_tx as { ops: Record<string, Json>[] }).ops;
  const payload = (j: Record<string, Json>, i: number) => ops(j)[i]!.payload as Record<string, Json>;

  test('unknown opcode', () =>
    rejectsJson((j) => {
      ops(j)[0]!.opcode = 1;
    }, /^mantle_tx\.ops\[0\]\.opcode: unknown opcode 1/));
  test('opcode out of u8 range', () =>
    rejectsJson((j) => {
      ops(j)[0]!.opcode = 300;
    }, /ops\[0\]\.opcode: 300 is out of range/));
  test('missing payload field', () =>
    rejectsJson((j) => void delete payload(j, 0).outputs, /ops\[0\]\.payload: missing field `outputs`/));
  test('u64 above the maximum', () =>
    rejectsJson((j) => {
      (payload(j, 0).outputs as Record<string, Json>[])[1]!.value = 18446744073709551616n;
    }, /ops\[0\]\.payload\.outputs\[1\]\.value: 18446744073709551616 is out of range for u64/));
  test('negative and fractional amounts', () => {
    rejectsJson((j) => {
      (payload(j, 0).outputs as Record<string, Json>[])[0]!.value = -1;
    }, /outputs\[0\]\.value/);
    rejectsJson((j) => {
      (payload(j, 0).outputs as Record<string, Json>[])[0]!.value = 1.5;
    }, /outputs\[0\]\.value: expected u64/);
    rejectsJson((j) => {
      (payload(j, 0).outputs as Record<string, Json>[])[0]!.value = '1';
    }, /outputs\[0\]\.value: expected u64/);
  });
  test('non-canonical field element', () =>
    rejectsJson((j) => {
      (payload(j, 0).inputs as Json[])[0] = bytesToHex(frToBytes(FR_MODULUS));
    }, /payload\.inputs\[0\]: field element is not canonical/));
  test('short hex id', () =>
    rejectsJson((j) => {
      payload(j, 1).channel = 'abcd';
    }, /payload\.channel: .* must be 32 bytes/));
  test('bad hex', () =>
    rejectsJson((j) => {
      payload(j, 1).channel = 'zz'.repeat(32);
    }, /payload\.channel: invalid hex/));
  test('too many inputs', () =>
    rejectsJson((j) => {
      payload(j, 0).inputs = Array(256).fill('00'.repeat(32));
    }, /payload\.inputs: list length 256/));
  test('no channel keys', () =>
    rejectsJson((j) => {
      payload(j, 1).keys = [];
    }, /payload\.keys: list length 0 is outside 1\.\.65535/));
  test('provider key that is not a curve point', () =>
    rejectsJson((j) => {
      payload(j, 6).provider_id = `02${'00'.repeat(31)}`;
    }, /payload\.provider_id: not a valid Ed25519 public key/));
  test('bad multiaddr', () =>
    rejectsJson((j) => {
      payload(j, 6).locators = ['/ip4/999.1.1.1'];
    }, /payload\.locators\[0\]: invalid multiaddr/));
  test('unknown service type', () =>
    rejectsJson((j) => {
      payload(j, 6).service_type = 'DA';
    }, /payload\.service_type: unknown service type/));
  test('proof count mismatch', () =>
    rejectsJson((j) => {
      (j.ops_proofs as Json[]).pop();
    }, /^ops_proofs: 10 proofs for 11 operations/));
  test('proof of the wrong variant', () =>
    rejectsJson((j) => {
      (j.ops_proofs as Json[])[0] = { None: null };
    }, /^ops_proofs\[0\]: incorrect proof type None for a Transfer/));
  test('unknown proof variant', () =>
    rejectsJson((j) => {
      (j.ops_proofs as Json[])[0] = { Groth: {} };
    }, /^ops_proofs\[0\]: unknown proof variant `Groth`/));
  test('channel signature indices not increasing', () =>
    rejectsJson((j) => {
      (j.ops_proofs as Record<string, Record<string, Record<string, Json>[]>>[])[1]!.ChannelMultiSigProof!
        .signatures![1]!.channel_key_index = 0;
    }, /ops_proofs\[1\]\.ChannelMultiSigProof\.signatures\[1\]: channel key indices must be strictly increasing/));
  test('wrong top-level types', () => {
    assert.throws(() => signedMantleTx.fromJson([]), /expected a signed transaction/);
    assert.throws(
      () => signedMantleTx.fromJson({ mantle_tx: { ops: {} }, ops_proofs: [] }),
      /mantle_tx\.ops: expected a list/,
    );
    assert.throws(() => signedMantleTx.fromJson({ mantle_tx: { ops: [] } }), /missing field `ops_proofs`/);
  });

  function mutateBytes(tx: SignedMantleTx, f: (b: Uint8Array) => Uint8Array): Uint8Array {
    return f(encodeSignedTx(tx));
  }

  test('binary: trailing bytes, truncation, unknown opcode, bad counts', () => {
    const tx = sampleSignedTx();
    const bytes = encodeSignedTx(tx);
    assert.deepEqual(decodeSignedTx(bytes), tx);
    assert.throws(() => decodeSignedTx(concatBytes(bytes, Uint8Array.of(0))), /1 trailing bytes/);
    for (const cut of [1, 10, 100, bytes.length - 1]) {
      assert.throws(() => decodeSignedTx(bytes.subarray(0, cut)), DecodeError, `cut at ${cut}`);
    }
    assert.throws(
      () =>
        decodeSignedTx(
          mutateBytes(tx, (b) => {
            b[1] = 5;
            return b;
          }),
        ),
      /: mantle_tx\.ops\[0\]\.opcode: unknown opcode 5/,
    );
    // Transfer with a non-canonical input note id.
    const t: SignedMantleTx = sampleSignedTx([SAMPLE_OPS[0]!]);
    const tb = encodeSignedTx(t);
    tb.set(filled(32, 0xff), 3);
    assert.throws(
      () => decodeSignedTx(tb),
      /: mantle_tx\.ops\[0\]\.payload\.inputs\[0\]: field element is not canonical/,
    );
  });

  test('binary: a provider key inside a declaration must be a curve point, small order allowed', () => {
    const o = SAMPLE_OPS.find((x) => x.opcode === Opcode.SDPDeclare)!;
    const bytes = encode(op, o);
    bytes.set(new Uint8Array(32), 1 + 1 + 1 + 2 + 11);
    assert.deepEqual(
      (decode(op, bytes).payload as { provider_id: Uint8Array }).provider_id,
      new Uint8Array(32),
    );
    bytes[1 + 1 + 1 + 2 + 11] = 2;
    assert.throws(() => decode(op, bytes), /: payload\.provider_id: not a valid Ed25519 public key/);
  });

  test('binary: channel signatures with repeated index', () => {
    const o = SAMPLE_OPS.find((x) => x.opcode === Opcode.ChannelWithdraw)!;
    const tx: SignedMantleTx = {
      mantle_tx: { ops: [o] },
      ops_proofs: [
        {
          type: 'ChannelMultiSigProof',
          signatures: [
            { signature: filled(64, 1), channel_key_index: 3 },
            { signature: filled(64, 2), channel_key_index: 3 },
          ],
        },
      ],
    };
    assert.throws(
      () => decodeSignedTx(encodeSignedTx(tx)),
      /ops_proofs\[0\]\.ChannelMultiSigProof\.signatures\[1\]: channel key indices/,
    );
  });

  test('binary: a lying length prefix does not allocate or read past the input', () => {
    // Inscription claims 1,835,008 bytes but only 3 follow.
    const bytes = concatBytes(
      Uint8Array.of(1, 17),
      new Uint8Array(32),
      Uint8Array.of(0x00, 0x00, 0x1c, 0x00),
      Uint8Array.of(1, 2, 3),
    );
    assert.throws(() => decode(mantleTx, bytes), /unexpected end of input/);
    // Above the bound.
    const over = concatBytes(Uint8Array.of(1, 17), new Uint8Array(32), Uint8Array.of(0x01, 0x00, 0x1c, 0x00));
    assert.throws(() => decode(mantleTx, over), /length 1835009 is above the maximum 1835008/);
  });

  test('u64::MAX values survive binary and JSON', () => {
    const o: Op = { opcode: Opcode.Transfer, payload: { inputs: [], outputs: [{ value: U64_MAX, pk: 1n }] } };
    assert.deepEqual(decode(op, encode(op, o)), o);
    assert.ok(stringifyJson(op.toJson(o)).includes('18446744073709551615'));
  });
});
