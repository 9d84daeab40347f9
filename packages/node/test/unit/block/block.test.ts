import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Json, parseJson, stringifyJson } from '@logos-ts/shared/json';
import {
  block,
  blockBodyRoot,
  blockToApiJson,
  checkBlockStructure,
  decodeBlock,
  encodeBlock,
} from '../../../src/block/block.ts';
import { encodeHeader, header, headerId, signedHeader } from '../../../src/block/header.ts';
import { bytesToHex, concatBytes } from '../../../src/codec/hex.ts';
import { decode, encode } from '../../../src/codec/schema.ts';
import { Ed25519Signer } from '../../../src/crypto/ed25519.ts';
import {
  filled,
  SAMPLE_BLOCK,
  SAMPLE_HEADER,
  SAMPLE_OPS,
  SAMPLE_UNCLE,
  sampleSignedTx,
  seq,
} from '../../mocks/fixtures.ts';

describe('blocks', () => {
  test('binary round trip', () => {
    const bytes = encodeBlock(SAMPLE_BLOCK);
    assert.deepEqual(decodeBlock(bytes), SAMPLE_BLOCK);
    assert.equal(bytesToHex(bytes.subarray(0, 297)), bytesToHex(encodeHeader(SAMPLE_HEADER)));
  });

  test('API JSON: header with id and no version, uncles with signatures, no block signature', () => {
    const text = stringifyJson(blockToApiJson(SAMPLE_BLOCK));
    const id = bytesToHex(headerId(SAMPLE_HEADER));
    assert.ok(
      text.startsWith(
        `{"header":{"id":"${id}","parent_block":"${bytesToHex(seq(32, 100))}","slot":689412,"body_root":`,
      ),
    );
    assert.ok(text.includes('"proof_of_leadership":{"proof":"0708'));
    assert.ok(!text.includes('version'));
    assert.ok(
      text.includes(`"uncle_headers":[{"header":{"id":"${bytesToHex(headerId(SAMPLE_UNCLE.header))}"`),
    );
    assert.ok(text.includes(`"signature":"${'09'.repeat(64)}"}]`));
    assert.ok(!text.includes('aaaa'));
  });

  test('structural checks: signature, body root, slot', () => {
    const signer = new Ed25519Signer(filled(32, 7));
    const transactions = [sampleSignedTx(SAMPLE_OPS.slice(0, 2))];
    const header = {
      ...SAMPLE_HEADER,
      body_root: blockBodyRoot({ uncle_headers: [], transactions }),
      proof_of_leadership: { ...SAMPLE_HEADER.proof_of_leadership, leader_key: signer.publicKey },
    };
    const good = { header, signature: signer.sign(encodeHeader(header)), uncle_headers: [], transactions };
    checkBlockStructure(good);
    assert.throws(() => checkBlockStructure({ ...good, signature: filled(64, 1) }), /signature/);
    assert.throws(() => checkBlockStructure({ ...good, transactions: [] }), /signature|body_root/);
    const slot0 = { ...header, slot: 0n };
    assert.throws(
      () => checkBlockStructure({ ...good, header: slot0, signature: signer.sign(encodeHeader(slot0)) }),
      /slot 0/,
    );
    const badRoot = { ...header, body_root: filled(32, 0) };
    assert.throws(
      () => checkBlockStructure({ ...good, header: badRoot, signature: signer.sign(encodeHeader(badRoot)) }),
      /body_root/,
    );
  });

  test('binary rejects: bad version, too many uncles, trailing bytes', () => {
    const bytes = encodeBlock(SAMPLE_BLOCK);
    const v2 = bytes.slice();
    v2[0] = 2;
    assert.throws(() => decodeBlock(v2), /: header\.version: unknown header version 2/);
    assert.throws(() => decodeBlock(concatBytes(bytes, Uint8Array.of(1))), /trailing/);
    const many = encodeBlock({ ...SAMPLE_BLOCK, uncle_headers: [] });
    many[297 + 64] = 5;
    assert.throws(() => decodeBlock(many), /: uncle_headers: length 5 exceeds static maximum 4/);
  });
});

describe('core JSON forms (storage, genesis files)', () => {
  test('header: version "Bedrock" first, round trip', () => {
    const j = parseJson(stringifyJson(header.toJson(SAMPLE_HEADER)));
    assert.ok(stringifyJson(j).startsWith('{"version":"Bedrock","parent_block":'));
    assert.deepEqual(header.fromJson(j), SAMPLE_HEADER);
    assert.throws(
      () => header.fromJson({ ...(j as object), version: 'Alpha' }),
      /unknown header version "Alpha"/,
    );
    const { version: _v, ...noVersion } = j as Record<string, Json>;
    assert.throws(() => header.fromJson(noVersion), /missing field `version`/);
  });

  test('signed header and block round trip through JSON', () => {
    assert.deepEqual(
      signedHeader.fromJson(parseJson(stringifyJson(signedHeader.toJson(SAMPLE_UNCLE)))),
      SAMPLE_UNCLE,
    );
    assert.deepEqual(block.fromJson(parseJson(stringifyJson(block.toJson(SAMPLE_BLOCK)))), SAMPLE_BLOCK);
  });

  test('a signed header is 361 bytes', () => {
    assert.equal(encode(signedHeader, SAMPLE_UNCLE).length, 361);
    assert.deepEqual(decode(signedHeader, encode(signedHeader, SAMPLE_UNCLE)), SAMPLE_UNCLE);
  });
});
