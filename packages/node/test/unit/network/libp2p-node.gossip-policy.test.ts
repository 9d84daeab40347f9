/** Gossip interop with the reference: Blake2b-256 message ids, unsigned `Author` messages validated as unsigned. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blake2b256 } from '../../../src/crypto/blake2b.ts';
import { acceptUnsignedAuthor, gossipMessageId } from '../../../src/network/index.ts';

test('the message id is Blake2b-256 of the data alone', () => {
  const data = Uint8Array.from([1, 2, 3]);
  assert.deepEqual(gossipMessageId({ data }), blake2b256(data));
});

test('from and seqno of an unsigned message are set aside for validation; signed messages are left as they are', () => {
  const m = { topic: 't', data: Uint8Array.of(1), from: Uint8Array.of(0, 1), seqno: new Uint8Array(8) };
  const v = acceptUnsignedAuthor(m);
  assert.equal(v.from, undefined);
  assert.equal(v.seqno, undefined);
  assert.equal(m.from.length, 2, 'the original message (kept and forwarded) is unchanged');
  const signed = { ...m, signature: new Uint8Array(64) };
  assert.equal(acceptUnsignedAuthor(signed), signed);
  const anon = { topic: 't', data: Uint8Array.of(1) };
  assert.equal(acceptUnsignedAuthor(anon), anon);
});
