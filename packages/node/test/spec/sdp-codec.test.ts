/** The reference's SDP codec tests (core/src/sdp/mod.rs). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJson, stringifyJson } from '@logos-ts/shared/json';
import { bytesToHex } from '../../src/codec/hex.ts';
import { decode, encode } from '../../src/codec/schema.ts';
import { ed25519PublicKey } from '../../src/crypto/ed25519.ts';
import { locator, locatorFromString, locatorToString } from '../../src/mantle/locator.ts';
import { locators, sdpDeclareOp, serviceType } from '../../src/mantle/ops.ts';
import { declarationId } from '../../src/mantle/sdp.ts';

const F = '(core/src/sdp/mod.rs)';

test(`locator_rejects_multiaddr_with_peer_id ${F}`, () => {
  assert.throws(
    () =>
      locatorFromString(
        '/ip4/65.109.51.37/udp/3000/quic-v1/p2p/12D3KooWL7a8LBbLRYnabptHPFBCmAs49Y7cVMqvzuSdd43tAJk8',
      ),
    /must not contain a peer ID/,
  );
});

test(`locator_rejects_multiaddr_with_unspecified_ipv4 ${F}`, () => {
  assert.throws(
    () => locatorFromString('/ip4/0.0.0.0/udp/3000/quic-v1'),
    /must not contain an unspecified IPv4 address/,
  );
});

test(`locator_rejects_multiaddr_with_unspecified_ipv6 ${F}`, () => {
  assert.throws(
    () => locatorFromString('/ip6/::/udp/3000/quic-v1'),
    /must not contain an unspecified IPv6 address/,
  );
});

test('locators are checked the same way in binary, JSON and every IPv6 spelling (Locator::try_from)', () => {
  const bad = [
    '/ip4/0.0.0.0/tcp/1',
    '/ip6/0:0:0:0:0:0:0:0/tcp/1',
    '/ip6/::0.0.0.0/tcp/1',
    '/dns4/example.com/tcp/443/p2p/12D3KooWL7a8LBbLRYnabptHPFBCmAs49Y7cVMqvzuSdd43tAJk8',
  ];
  for (const text of bad) {
    assert.throws(() => locator.fromJson(text), /Locator multiaddr must not/, text);
  }
  // The same addresses in binary (a u16 length, then the multiaddr bytes) are refused on decoding.
  const ok = locatorFromString('/ip4/1.2.3.4/tcp/1');
  const bytes = encode(locator, ok);
  bytes.set([0, 0, 0, 0], 3);
  assert.throws(() => decode(locator, bytes), /unspecified IPv4/);
  // Not unspecified: a mapped IPv4 address, loopback, a specific address.
  for (const text of ['/ip6/::ffff:0.0.0.0/tcp/1', '/ip6/::1/tcp/1', '/ip4/127.0.0.1/udp/3000/quic-v1']) {
    assert.equal(locatorToString(locator.fromJson(text)), locatorToString(locatorFromString(text)));
  }
});

test(`locator_accepts_specific_ip_without_peer_id ${F}`, () => {
  const l = locatorFromString('/ip4/127.0.0.1/udp/3000/quic-v1');
  assert.equal(locatorToString(l), '/ip4/127.0.0.1/udp/3000/quic-v1');
});

test(`locators_array_serde_equivalence ${F}`, () => {
  const l = locatorFromString('/ip4/127.0.0.1/udp/3001/quic-v1');
  const text = stringifyJson(locators.toJson([l]));
  assert.equal(text, '["/ip4/127.0.0.1/udp/3001/quic-v1"]');
  assert.deepEqual(locators.fromJson(parseJson(text)), [l]);
});

test(`empty_locators_fail_to_deserialize ${F}`, () => {
  assert.throws(() => locators.fromJson([]), /list length 0 is outside 1\.\.8/);
});

test(`u8_roundtrip (service_type_tests) ${F}`, () => {
  assert.equal(bytesToHex(encode(serviceType, 'BN')), '00');
  assert.equal(decode(serviceType, Uint8Array.of(0)), 'BN');
  assert.throws(() => decode(serviceType, Uint8Array.of(1)), /unknown service type/);
});

test(`declaration_id_binds_the_locator_split ${F}`, () => {
  const message = (ls: string[]) => ({
    provider_id: ed25519PublicKey(new Uint8Array(32).fill(1)),
    zk_id: 3n,
    locators: ls.map(locatorFromString),
  });
  const joined = message(['/ip4/203.0.113.10/tcp/4001']);
  const split = message(['/ip4/203.0.113.10', '/tcp/4001']);
  const concat = (m: { locators: Uint8Array[] }) =>
    bytesToHex(Uint8Array.from(m.locators.flatMap((l) => [...l])));
  assert.equal(concat(joined), concat(split));
  assert.notEqual(bytesToHex(declarationId(joined)), bytesToHex(declarationId(split)));
});

test('a declaration with provider key [0; 32] decodes (F ProviderId/DeclarationMessage fixtures)', () => {
  const d = {
    service_type: 'BN' as const,
    locators: [locatorFromString('/ip4/127.0.0.1/udp/3000/quic-v1')],
    provider_id: new Uint8Array(32),
    zk_id: 1n,
    service_note_id: 0n,
  };
  assert.deepEqual(decode(sdpDeclareOp, encode(sdpDeclareOp, d)), d);
  assert.deepEqual(sdpDeclareOp.fromJson(parseJson(stringifyJson(sdpDeclareOp.toJson(d)))), d);
});
