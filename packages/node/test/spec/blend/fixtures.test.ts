/**
 * The reference's golden Blend message fixtures (F: blend/message/src/fixtures/mod.rs and its .hex
 * files, copied to test/spec/blend/fixtures/): our decoder opens each and our encoder rebuilds it byte
 * for byte from the same inputs. The fixtures are deterministic because every payload body fills the
 * whole padded size (no random padding) and every message uses all its layers (no random filler);
 * the message's innermost sender key ([3; 32]) and proof of quota (zeros), random in F's `try_new`,
 * are the fixture's fixed stand-ins, supplied here through the random source in F's draw order.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  type BlendingHeader,
  BlendMessageError,
  decapsulate,
  decodeEncapsulatedMessage,
  decodeEncapsulatedPart,
  decodePaddedPayloadBody,
  decodePayload,
  decodePublicHeader,
  encapsulate,
  encodeBlendingHeader,
  encodeEncapsulatedMessage,
  encodeEncapsulatedPart,
  encodePaddedPayloadBody,
  encodePayload,
  encodePublicHeader,
  initializePrivateHeader,
  type LayerProofVerifier,
  layerSharedKey,
  MAX_PAYLOAD_BODY_SIZE,
  messageId,
  PayloadType,
  proofOfQuotaUnchecked,
  proofOfSelectionUnchecked,
  pseudoRandomBlendingHeader,
  type RandomFill,
  readBlendingHeader,
  verifyPublicHeaderSignature,
} from '../../../src/blend/message/index.ts';
import { bytesToHex, hexToBytes } from '../../../src/codec/hex.ts';
import { x25519SecretFromEd25519 } from '../../../src/crypto/blend/x25519.ts';
import { ed25519PublicKey } from '../../../src/crypto/ed25519.ts';

const fixture = (name: string) =>
  readFileSync(new URL(`./fixtures/${name}.hex`, import.meta.url), 'utf8').trim();

const fill = (b: number, n: number) => new Uint8Array(n).fill(b);

/** F's `full_length_body`: `prefix`, then 0xAA up to MAX_PAYLOAD_BODY_SIZE. */
function fullLengthBody(prefix: number[] | Uint8Array): Uint8Array {
  const body = fill(0xaa, MAX_PAYLOAD_BODY_SIZE);
  body.set(prefix, 0);
  return body;
}

/** A random source that must never be asked for a byte. */
const noRandom: RandomFill = (dst) => {
  assert.equal(dst.length, 0, 'a fixture draws no random byte');
};

/** A random source handing out the given chunks, each exactly as long as the draw asking for it. */
function scripted(...chunks: Uint8Array[]): RandomFill & { left(): number } {
  const queue = [...chunks];
  const f = ((dst: Uint8Array) => {
    if (dst.length === 0) return;
    const next = queue.shift();
    assert.ok(next, 'no scripted bytes left');
    assert.equal(dst.length, next.length, 'draw of an unexpected size');
    dst.set(next);
  }) as RandomFill & { left(): number };
  f.left = () => queue.length;
  return f;
}

const zeroPoq = proofOfQuotaUnchecked(new Uint8Array(160));
const zeroPosel = proofOfSelectionUnchecked(new Uint8Array(32));

// F: blend/message/src/fixtures/mod.rs codec_fixtures!(PayloadType, ...)
test('PayloadType fixture: 00, 01, 02', () => {
  assert.deepEqual([PayloadType.Cover, PayloadType.BlockProposal, PayloadType.Transaction], [0, 1, 2]);
  for (const t of [0, 1, 2] as const) {
    const bytes = encodePayload({ type: t, body: fullLengthBody([]) }, noRandom);
    assert.equal(bytes[0], t);
  }
});

// F: blend/message/src/fixtures/mod.rs codec_fixtures!(PaddedPayloadBody, full_length_body(&[1u8, 2, 3]) ...)
test('PaddedPayloadBody fixture (padded_payload_body.hex)', () => {
  const hex = fixture('padded_payload_body');
  const body = fullLengthBody([1, 2, 3]);
  assert.equal(bytesToHex(encodePaddedPayloadBody(body, noRandom)), hex);
  assert.deepEqual(decodePaddedPayloadBody(hexToBytes(hex)), body);
});

// F: blend/message/src/fixtures/mod.rs codec_fixtures!(Payload, ... BlockProposal, full_length_body(&[4u8, 5, 6]) ...)
test('Payload fixture (payload.hex)', () => {
  const hex = fixture('payload');
  const body = fullLengthBody([4, 5, 6]);
  assert.equal(bytesToHex(encodePayload({ type: PayloadType.BlockProposal, body }, noRandom)), hex);
  assert.deepEqual(decodePayload(hexToBytes(hex)), { type: PayloadType.BlockProposal, body });
});

// F: blend/message/src/fixtures/mod.rs codec_fixtures!(EncapsulatedPayload, Self::initialize(... [7u8, 8, 9] ...))
test('EncapsulatedPayload fixture (encapsulated_payload.hex): an initialized payload is its plain encoding', () => {
  const hex = fixture('encapsulated_payload');
  const body = fullLengthBody([7, 8, 9]);
  assert.equal(bytesToHex(encodePayload({ type: PayloadType.BlockProposal, body }, noRandom)), hex);
});

// F: blend/message/src/fixtures/mod.rs codec_fixtures!(EncapsulatedPrivateHeader, context = 1, ...)
test('EncapsulatedPrivateHeader fixture: one input, one layer', () => {
  const want =
    '47a7f32151949c60050ec4454b43fcaf351a2f2383ddef2a6ab4176e269e34477821d1abaf629a228ad07b998628f4dd1e137827ca30ec8d99e90aaf9ff355af72e911fbe5eaaf7a867ca80e0a45d5a00c89a7360996aaf496503291d771adeb9caed0ca2bc20af7c31ecea182b4eb797300b68a4e5001ee438e45b402993984782478001f7336041173182189484d18804b75fb1b753c8c7cc0ae56d45c1d5b281ed36752418b833ac7e8d97bb2f78a3ac0ef9704c4f4c61ebd1c2bbfb3806dabbd2ef7b33c7778ce23a4133ac0dcf3d39c43f0562090f590506fd30e38eae7b8eb89690481bbb9a9848921d9d951b56a4ad15eec0093997cf07c04722b32edccf3bec96815f21a40d1e40e7fe5cea75d821f9763339402a92e136541b6837c7e';
  const key = layerSharedKey({
    ephemeralSigningKey: fill(1, 32),
    recipientSigningKey: ed25519PublicKey(fill(2, 32)),
    proofOfQuota: zeroPoq,
    proofOfSelection: zeroPosel,
  });
  assert.equal(bytesToHex(initializePrivateHeader([key], 1, noRandom)), want);
});

// F: blend/message/src/fixtures/mod.rs codec_fixtures!(EncapsulatedBlendingHeader, initialize(&BlendingHeader::pseudo_random(&[1u8; 32])))
test('EncapsulatedBlendingHeader fixture: the pseudo-random header of [1; 32]', () => {
  const want =
    '9c05c033b59c05091fe7e3bd1bbc4abc77f69a71ba282f10e6675bb051fd4a2a5875f96f219d2a8fadfd1ed5af6476c35d6be6a485647abf2709569a69b0aa1c030ca0e01eed758d1158e36e487c1282ec22aa61edbfdd7032067707f477951f27e8f5e76ef941dde3de62a3cea5a9b6ed3e5294a836c6cb6b50eda8a09a27f57fe0e30ffcc8b93c159708ac9a230eda377da92d675c8db8e95c2f9009e1ae63e10278547404d7b335a4a749f2811570e34d6588123e1c2a614faabd0602a3fb4698466e50305eafcddebcd175c63bd560e47c883a993c87a9d9460db9ca83c56602f1eee75124c22637baa8d9fc42a62b3a34317dd4ab53e3d71442dadec7b1e8a4c258d208a3d3662a4f83674f93d6074a81e902c33d4adcbd1c995f85281200';
  const header = pseudoRandomBlendingHeader(fill(1, 32));
  assert.equal(bytesToHex(encodeBlendingHeader(header)), want);
  assert.deepEqual(readBlendingHeader(hexToBytes(want), 0), header);
});

// F: blend/message/src/fixtures/mod.rs codec_fixtures!(BlendingHeader, Self { [0], [1], [2], [3], false })
test('BlendingHeader fixture: fields of 0x00, 0x01, 0x02, 0x03, not last', () => {
  const want = `${'00'.repeat(32)}${'01'.repeat(160)}${'02'.repeat(64)}${'03'.repeat(32)}00`;
  const header: BlendingHeader = {
    signingKey: fill(0, 32),
    proofOfQuota: proofOfQuotaUnchecked(fill(1, 160)),
    signature: fill(2, 64),
    proofOfSelection: proofOfSelectionUnchecked(fill(3, 32)),
    isLast: false,
  };
  assert.equal(bytesToHex(encodeBlendingHeader(header)), want);
  assert.deepEqual(readBlendingHeader(hexToBytes(want), 0), header);
});

// F: blend/message/src/fixtures/mod.rs PUBLIC_HEADER_HEX and codec_fixtures!(PublicHeader / PublicHeaderWithVerifiedSignature / VerifiedPublicHeader)
test('PublicHeader fixture: version 1, key 0x00, proof of quota 0x01, signature 0x02', () => {
  const want = `01${'00'.repeat(32)}${'01'.repeat(160)}${'02'.repeat(64)}`;
  const header = {
    signingKey: fill(0, 32),
    proofOfQuota: proofOfQuotaUnchecked(fill(1, 160)),
    signature: fill(2, 64),
  };
  assert.equal(bytesToHex(encodePublicHeader(header)), want);
  assert.deepEqual(decodePublicHeader(hexToBytes(want)), header);
});

/** F's `wire_fixture_message`: recipient [1; 32], ephemeral key [2; 32], zero proofs, one layer. */
function wireFixtureMessage() {
  const random = scripted(fill(3, 32), new Uint8Array(160));
  const message = encapsulate(
    [
      {
        ephemeralSigningKey: fill(2, 32),
        recipientSigningKey: ed25519PublicKey(fill(1, 32)),
        proofOfQuota: zeroPoq,
        proofOfSelection: zeroPosel,
      },
    ],
    {
      type: PayloadType.BlockProposal,
      body: fullLengthBody(new TextEncoder().encode('well-known blend message payload')),
    },
    1,
    { random },
  );
  assert.equal(random.left(), 0);
  return message;
}

// F: blend/message/src/fixtures/mod.rs codec_fixtures!(EncapsulatedMessage / ...WithVerifiedSignature / ...WithVerifiedPublicHeader, encapsulated_message.hex)
test('EncapsulatedMessage fixture (encapsulated_message.hex): encoded byte for byte, decoded, opened', async () => {
  const hex = fixture('encapsulated_message');
  assert.equal(hex.length / 2, 18_741);
  const built = wireFixtureMessage();
  assert.equal(bytesToHex(encodeEncapsulatedMessage(built)), hex);

  const decoded = decodeEncapsulatedMessage(hexToBytes(hex), 1);
  assert.deepEqual(decoded, { ...built });
  assert.equal(messageId(decoded), 0n);
  assert.ok(verifyPublicHeaderSignature(decoded));

  // The recipient ([1; 32]) opens it with any proof accepted: the fixture's payload comes out.
  const accept: LayerProofVerifier = { proofOfQuota: async () => true, proofOfSelection: () => true };
  const out = await decapsulate(decoded, x25519SecretFromEd25519(fill(1, 32)), accept);
  assert.equal(out.kind, 'complete');
  if (out.kind !== 'complete') return;
  assert.equal(out.payloadType, PayloadType.BlockProposal);
  assert.deepEqual(out.body, fullLengthBody(new TextEncoder().encode('well-known blend message payload')));
  assert.deepEqual(out.blendingToken.signing_key, ed25519PublicKey(fill(2, 32)));

  // Another node cannot.
  await assert.rejects(decapsulate(decoded, x25519SecretFromEd25519(fill(9, 32)), accept), BlendMessageError);
});

// F: blend/message/src/fixtures/mod.rs codec_fixtures!(EncapsulatedPart, context = 1, ... encapsulated_part.hex)
test('EncapsulatedPart fixture (encapsulated_part.hex)', () => {
  const hex = fixture('encapsulated_part');
  const built = wireFixtureMessage();
  assert.equal(bytesToHex(encodeEncapsulatedPart(built)), hex);
  const part = decodeEncapsulatedPart(hexToBytes(hex), 1);
  assert.deepEqual(part.privateHeader, built.privateHeader);
  assert.deepEqual(part.payload, built.payload);
});
