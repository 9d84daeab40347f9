import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex, hexToBytes } from '../../../src/codec/hex.ts';
import {
  Ed25519Signer,
  ed25519GenerateSecretKey,
  ed25519PublicKey,
  ed25519Sign,
  ed25519Verify,
  isEd25519Point,
} from '../../../src/crypto/ed25519.ts';
import {
  ed25519VerifyBackend,
  ed25519VerifyPortable,
  isCanonicalS,
  isCanonicalY,
  isSmallOrderEncoding,
  NODE_CRYPTO_PROBES,
  nodeCryptoPassesProbes,
  SMALL_ORDER_ENCODINGS,
} from '../../../src/crypto/ed25519-verify.ts';
import { REFERENCE } from '../../spec/vectors.ts';

test('keystore fixture key pairs (reference legacy_keystore.yaml)', () => {
  for (const { title, sk, pk } of REFERENCE.ed25519_keys.pairs) {
    assert.equal(bytesToHex(ed25519PublicKey(hexToBytes(sk))), pk, title);
  }
});

test('RFC 8032 test 1: key, signature of the empty message', () => {
  const sk = hexToBytes('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
  const pk = ed25519PublicKey(sk);
  assert.equal(bytesToHex(pk), 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
  const sig = ed25519Sign(sk, new Uint8Array());
  assert.equal(
    bytesToHex(sig),
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  );
  assert.equal(ed25519Verify(pk, new Uint8Array(), sig), true);
});

test('sign/verify agree with @noble/curves; tampering fails', () => {
  for (let i = 0; i < 20; i++) {
    const sk = ed25519GenerateSecretKey();
    const msg = new Uint8Array(32).fill(i);
    const signer = new Ed25519Signer(sk);
    const sig = signer.sign(msg);
    assert.equal(bytesToHex(sig), bytesToHex(ed25519.sign(msg, sk)));
    assert.equal(bytesToHex(signer.publicKey), bytesToHex(ed25519.getPublicKey(sk)));
    assert.equal(ed25519Verify(signer.publicKey, msg, sig), true);
    assert.equal(ed25519.verify(sig, msg, signer.publicKey), true);
    const badMsg = msg.slice();
    badMsg[0]! ^= 1;
    assert.equal(ed25519Verify(signer.publicKey, badMsg, sig), false);
    const badSig = sig.slice();
    badSig[10]! ^= 1;
    assert.equal(ed25519Verify(signer.publicKey, msg, badSig), false);
  }
});

test('verify returns false, never throws, on malformed keys and signatures', () => {
  const sk = ed25519GenerateSecretKey();
  const pk = ed25519PublicKey(sk);
  const msg = new Uint8Array(32);
  const sig = ed25519Sign(sk, msg);
  assert.equal(ed25519Verify(pk.subarray(0, 31), msg, sig), false);
  assert.equal(ed25519Verify(pk, msg, sig.subarray(0, 63)), false);
  assert.equal(ed25519Verify(new Uint8Array(32).fill(0xff), msg, sig), false);
  // S >= L (non-canonical scalar) is rejected.
  const highS = sig.slice();
  highS.set(new Uint8Array(32).fill(0xff), 32);
  assert.equal(ed25519Verify(pk, msg, highS), false);
});

test('public keys: any 32 bytes that decompress to a point, small order and non-canonical included (dalek from_bytes)', () => {
  assert.equal(isEd25519Point(new Uint8Array(32)), true, 'all-zero key: y = 0, a point of order 4');
  const identity = new Uint8Array(32);
  identity[0] = 1;
  assert.equal(isEd25519Point(identity), true, 'identity (small order)');
  const negZero = identity.slice();
  negZero[31] = 0x80;
  assert.equal(isEd25519Point(negZero), true, 'x = 0 with the sign bit set');
  assert.equal(isEd25519Point(toLe(P + 1n)), true, 'y = p + 1 (non-canonical identity)');
  assert.equal(isEd25519Point(hexToBytes(`58${'66'.repeat(31)}`)), true, 'base point');
  const notPoint = new Uint8Array(32);
  notPoint[0] = 2;
  assert.equal(isEd25519Point(notPoint), false, 'y = 2 is not on the curve');
  assert.equal(isEd25519Point(new Uint8Array(31)), false);
});

test('isEd25519Point agrees with point decompression (noble, ZIP-215 mode) on random and edge encodings', () => {
  const noble = (b: Uint8Array) => {
    try {
      ed25519.Point.fromBytes(b, true);
      return true;
    } catch {
      return false;
    }
  };
  const inputs: Uint8Array[] = [];
  for (let i = 0; i < 3000; i++) inputs.push(new Uint8Array(createHash('sha256').update(`k${i}`).digest()));
  for (let y = 0n; y < 40n; y++) {
    for (const sign of [0, 0x80]) {
      for (const base of [y, P + y < 2n ** 255n ? P + y : y, P - 1n - y]) {
        const e = toLe(base);
        e[31]! |= sign;
        inputs.push(e);
      }
    }
  }
  let points = 0;
  for (const b of inputs) {
    const expected = noble(b);
    assert.equal(isEd25519Point(b), expected, bytesToHex(b));
    if (expected) points++;
  }
  assert.ok(points > 1000 && points < inputs.length - 1000, `${points} of ${inputs.length}`);
});

// ---------- verification semantics: ed25519-dalek 2 `verify` ----------

const P = 2n ** 255n - 19n;
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const B = ed25519.Point.BASE;
type Pt = typeof B;

function le(b: Uint8Array): bigint {
  let x = 0n;
  for (let i = b.length - 1; i >= 0; i--) x = (x << 8n) | BigInt(b[i]!);
  return x;
}
function toLe(x: bigint): Uint8Array {
  const o = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    o[i] = Number(x & 255n);
    x >>= 8n;
  }
  return o;
}
const cat = (...a: Uint8Array[]) => Uint8Array.from(Buffer.concat(a));
const challenge = (...a: Uint8Array[]) =>
  le(
    new Uint8Array(
      createHash('sha512')
        .update(cat(...a))
        .digest(),
    ),
  ) % L;
const scalar = (tag: string) => challenge(new TextEncoder().encode(tag));

/**
 * The rules of ed25519-dalek 2.2 `VerifyingKey::verify` (no `legacy_compatibility`), written out:
 * S < L, A decompressed leniently, k = H(R ‖ A bytes as given ‖ M), R' = [S]B - [k]A compared with R
 * as bytes after canonical encoding.
 */
function dalekVerify(pub: Uint8Array, msg: Uint8Array, sig: Uint8Array): boolean {
  const s = le(sig.subarray(32));
  if (s >= L) return false;
  let a: Pt;
  try {
    a = ed25519.Point.fromBytes(pub, true);
  } catch {
    return false;
  }
  const k = challenge(sig.subarray(0, 32), pub, msg);
  return (
    bytesToHex(B.multiplyUnsafe(s).subtract(a.multiplyUnsafe(k)).toBytes()) ===
    bytesToHex(sig.subarray(0, 32))
  );
}

/** The 8 torsion points: [L]Q for a point Q outside the prime-order subgroup generates them. */
function torsion(): Pt[] {
  for (let y = 2n; ; y++) {
    let q: Pt;
    try {
      q = ed25519.Point.fromBytes(toLe(y));
    } catch {
      continue;
    }
    const t = q.multiplyUnsafe(L - 1n).add(q);
    if (!t.is0() && !t.double().double().is0()) {
      return Array.from({ length: 8 }, (_, i) =>
        i === 0 ? ed25519.Point.ZERO : t.multiplyUnsafe(BigInt(i)),
      );
    }
  }
}

test('verification is cofactorless with R compared as bytes, S < L, keys hashed as given (dalek verify)', () => {
  const tors = torsion();
  // Every encoding of a small-order point, the non-canonical ones (y + p, x = 0 with sign bit) included.
  const smallKeys: Uint8Array[] = [];
  for (const t of tors) {
    const e = t.toBytes();
    smallKeys.push(e);
    const y = le(e) & (2n ** 255n - 1n);
    if (y + P < 2n ** 255n) {
      const e2 = toLe(y + P);
      e2[31]! |= e[31]! & 0x80;
      smallKeys.push(e2);
    }
    if (t.x === 0n) {
      const e3 = e.slice();
      e3[31]! |= 0x80;
      smallKeys.push(e3);
    }
  }
  let accepted = 0;
  let rejectedButCofactoredAccepts = 0;
  const check = (what: string, pub: Uint8Array, msg: Uint8Array, sig: Uint8Array) => {
    const expected = dalekVerify(pub, msg, sig);
    assert.equal(ed25519Verify(pub, msg, sig), expected, what);
    assert.equal(ed25519VerifyPortable(pub, msg, sig), expected, `${what} (portable)`);
    if (expected) accepted++;
    else if (ed25519.verify(sig, msg, pub, { zip215: true })) rejectedButCofactoredAccepts++;
  };
  // Small-order keys: with R = [r]B and S = r the equation holds iff [k]A is the identity.
  smallKeys.forEach((pub, j) => {
    for (let i = 0; i < 16; i++) {
      const r = scalar(`small ${j} ${i}`);
      check(
        `small-order key ${bytesToHex(pub)} #${i}`,
        pub,
        new TextEncoder().encode(`m${i}`),
        cat(B.multiply(r).toBytes(), toLe(r)),
      );
    }
  });
  // Mixed-order keys A = [a]B + T, R with and without a torsion part.
  for (let t = 1; t < 8; t++) {
    for (let i = 0; i < 12; i++) {
      const a = scalar(`a ${t} ${i}`);
      const pub = B.multiply(a).add(tors[t]!).toBytes();
      const r = scalar(`r ${t} ${i}`);
      const msg = new TextEncoder().encode(`x${i}`);
      for (const rp of [B.multiply(r), B.multiply(r).add(tors[(8 - t) % 8]!)]) {
        const rb = rp.toBytes();
        const s = (r + challenge(rb, pub, msg) * a) % L;
        check(`mixed-order key t=${t} #${i}`, pub, msg, cat(rb, toLe(s)));
      }
    }
  }
  // Non-canonical encodings (y >= p) of points of large order as keys.
  for (let y = 0n; y < 19n; y++) {
    for (const sign of [0, 0x80]) {
      const e = toLe(P + y);
      e[31]! |= sign;
      let q: Pt;
      try {
        q = ed25519.Point.fromBytes(e, true);
      } catch {
        continue;
      }
      if (q.isSmallOrder()) continue;
      const r = scalar(`nc ${y} ${sign}`);
      const rb = B.multiply(r).toBytes();
      const msg = new Uint8Array([Number(y)]);
      // Without the key's discrete log no signature verifies (with S = r the equation needs
      // [k]A = 0): these keys take the portable path, their canonical twins node:crypto.
      check(`non-canonical key y = p + ${y}`, e, msg, cat(rb, toLe(r)));
      check('its canonical twin', q.toBytes(), msg, cat(rb, toLe(r)));
    }
  }
  // Ordinary keys with a small-order R: S = k a makes [S]B - [k]A the identity.
  for (let i = 0; i < 6; i++) {
    const a = scalar(`o ${i}`);
    const pub = B.multiply(a).toBytes();
    const msg = new Uint8Array([i]);
    for (const t of tors) {
      const rb = t.toBytes();
      check(`ordinary key, small-order R #${i}`, pub, msg, cat(rb, toLe((challenge(rb, pub, msg) * a) % L)));
    }
  }
  // A non-canonical R (the identity as y = p + 1) never verifies, its canonical form does.
  const idKey = ed25519.Point.ZERO.toBytes();
  check('non-canonical R', idKey, new Uint8Array([1]), cat(toLe(P + 1n), toLe(0n)));
  check('canonical R', idKey, new Uint8Array([1]), cat(idKey, toLe(0n)));
  // S >= L is refused even where S - L would verify.
  const a = scalar('key');
  const pub = B.multiply(a).toBytes();
  const r = scalar('nonce');
  const rb = B.multiply(r).toBytes();
  const msg = new Uint8Array([7]);
  const s = (r + challenge(rb, pub, msg) * a) % L;
  check('canonical S', pub, msg, cat(rb, toLe(s)));
  check('S + L', pub, msg, cat(rb, toLe(s + L)));
  // Not a point.
  check('key not on the curve', toLe(2n), msg, cat(rb, toLe(s)));
  // The vectors exercise both outcomes and the cofactored/cofactorless split.
  assert.ok(accepted > 50, `accepted ${accepted}`);
  assert.ok(rejectedButCofactoredAccepts > 50, `split ${rejectedButCofactoredAccepts}`);
});

test('the small-order encodings are exactly those of the 8 torsion points, in every form dalek decodes', () => {
  const expected = new Set<string>();
  for (const t of torsion()) {
    const e = t.toBytes();
    const y = le(e) & (2n ** 255n - 1n);
    const forms = [y, ...(y + P < 2n ** 255n ? [y + P] : [])];
    const signs = t.x === 0n ? [0, 0x80] : [e[31]! & 0x80];
    for (const f of forms) {
      for (const sign of signs) {
        const b = toLe(f);
        b[31]! |= sign;
        expected.add(bytesToHex(b));
      }
    }
  }
  assert.deepEqual(new Set(SMALL_ORDER_ENCODINGS.map(bytesToHex)), expected);
  for (const e of SMALL_ORDER_ENCODINGS) {
    assert.ok(ed25519.Point.fromBytes(e, true).isSmallOrder(), bytesToHex(e));
    assert.equal(isSmallOrderEncoding(e), true);
    assert.equal(isSmallOrderEncoding(cat(new Uint8Array(32), e), 32), true, 'at an offset');
  }
  const nearMiss = SMALL_ORDER_ENCODINGS[10]!.slice();
  nearMiss[31]! ^= 1;
  assert.equal(isSmallOrderEncoding(nearMiss), false);
  assert.equal(isSmallOrderEncoding(B.toBytes()), false);
});

test('canonical y and S: the boundaries p and L', () => {
  assert.equal(isCanonicalY(toLe(P - 1n)), true, 'p - 1');
  assert.equal(isCanonicalY(toLe(P)), false, 'p');
  assert.equal(isCanonicalY(toLe(2n ** 255n - 1n)), false, '2^255 - 1');
  const pWithSign = toLe(P);
  pWithSign[31]! |= 0x80;
  assert.equal(isCanonicalY(pWithSign), false, 'p with the sign bit');
  const belowWithSign = toLe(P - 1n);
  belowWithSign[31]! |= 0x80;
  assert.equal(isCanonicalY(belowWithSign), true, 'p - 1 with the sign bit');
  assert.equal(isCanonicalY(cat(new Uint8Array(5), toLe(P)), 5), false, 'at an offset');
  const sig = (s: bigint) => cat(new Uint8Array(32), toLe(s));
  assert.equal(isCanonicalS(sig(0n)), true);
  assert.equal(isCanonicalS(sig(L - 1n)), true, 'L - 1');
  assert.equal(isCanonicalS(sig(L)), false, 'L');
  assert.equal(isCanonicalS(sig(L + 1n)), false, 'L + 1');
  assert.equal(isCanonicalS(sig(2n ** 253n)), false, '2^253');
});

test('node:crypto holds the rules on ordinary inputs on this Node, so it verifies them (the fast path)', () => {
  assert.ok(NODE_CRYPTO_PROBES.some(([, , , expected]) => expected));
  assert.ok(NODE_CRYPTO_PROBES.some(([, , , expected]) => !expected));
  for (const [pk, msg, sig, expected] of NODE_CRYPTO_PROBES) {
    assert.equal(
      ed25519VerifyPortable(hexToBytes(pk), new TextEncoder().encode(msg), hexToBytes(sig)),
      expected,
      `probe ${pk} ${msg}`,
    );
  }
  assert.equal(nodeCryptoPassesProbes(), true);
  assert.equal(ed25519VerifyBackend(), 'node:crypto');
});

test('a signer never shows its secret when serialised', () => {
  const signer = new Ed25519Signer(ed25519GenerateSecretKey());
  assert.equal(JSON.stringify({ signer }), '{"signer":"[Ed25519Signer]"}');
});

test('the start-up self-check holds dalek verify semantics (small-order and non-canonical keys, no cofactor)', async () => {
  const { runSelfCheck } = await import('../../../src/selfcheck.ts');
  assert.deepEqual(
    runSelfCheck().find((r) => r.name === 'ed25519-verify'),
    { name: 'ed25519-verify', ok: true },
  );
});
