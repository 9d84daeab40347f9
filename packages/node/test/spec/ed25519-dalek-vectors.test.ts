/**
 * Ed25519 verification against the edge-case vectors ed25519-dalek tests itself with: the C2SP CCTV
 * ed25519vectors (ed25519-dalek 2.2.0 VALIDATIONVECTORS, judged by tests/validation_criteria.rs).
 * dalek's `verify` accepts a vector exactly when all its flags are among VERIFY_ALLOWED_EDGECASES;
 * the reference verifies with that function (kms/keys/src/keys/ed25519/public.rs). The same verdicts
 * must come out on every supported Node, through the public function and the portable one.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { hexToBytes } from '../../src/codec/hex.ts';
import { ed25519Verify, ed25519VerifyPortable } from '../../src/crypto/ed25519-verify.ts';

interface Fixture {
  flags: string[];
  keys: string[];
  sigs: string[];
  vectors: [number, number, string, number[]][];
}

const fixture = JSON.parse(
  readFileSync(new URL('./ed25519-dalek-vectors.json', import.meta.url), 'utf8'),
) as Fixture;

/** ed25519-dalek tests/validation_criteria.rs VERIFY_ALLOWED_EDGECASES. */
const VERIFY_ALLOWED = new Set([
  'low_order_A',
  'low_order_R',
  'non_canonical_A',
  'low_order_component_A',
  'low_order_component_R',
  'reencoded_k',
]);

const L = 2n ** 252n + 27742317777372353535851937790883648493n;

const vectors = fixture.vectors.map(([k, s, msg, flags], number) => {
  const names = flags.map((f) => fixture.flags[f]!);
  return {
    number,
    key: hexToBytes(fixture.keys[k]!),
    sig: hexToBytes(fixture.sigs[s]!),
    msg: new TextEncoder().encode(msg),
    flags: new Set(names),
    expected: names.every((f) => VERIFY_ALLOWED.has(f)),
  };
});

test('the fixture is the whole CCTV set: 914 vectors, both verdicts well represented', () => {
  assert.equal(vectors.length, 914);
  const accepted = vectors.filter((v) => v.expected).length;
  assert.ok(accepted > 150 && accepted < 764, `${accepted} accepted`);
});

test('every CCTV vector gets dalek verify verdict (public and portable verification)', () => {
  for (const v of vectors) {
    const what = `vector ${v.number} [${[...v.flags].join(', ')}]`;
    assert.equal(ed25519Verify(v.key, v.msg, v.sig), v.expected, what);
    assert.equal(ed25519VerifyPortable(v.key, v.msg, v.sig), v.expected, what);
  }
});

/** The verdicts of the vectors carrying `flag`, counted. */
function verdicts(flag: string): { accepted: number; rejected: number } {
  const withFlag = vectors.filter((v) => v.flags.has(flag));
  const accepted = withFlag.filter((v) => ed25519Verify(v.key, v.msg, v.sig)).length;
  return { accepted, rejected: withFlag.length - accepted };
}

test('small-order keys verify when the equation holds', () => {
  const { accepted, rejected } = verdicts('low_order_A');
  assert.ok(accepted >= 50, `accepted ${accepted}`);
  assert.ok(rejected >= 50, `rejected ${rejected}`);
  const smallOrderKeyOnly = vectors.find(
    (v) => v.flags.has('low_order_A') && v.expected && !v.flags.has('non_canonical_A'),
  );
  assert.ok(smallOrderKeyOnly);
  assert.equal(ed25519Verify(smallOrderKeyOnly.key, smallOrderKeyOnly.msg, smallOrderKeyOnly.sig), true);
});

test('non-canonical key encodings verify, the key hashed as given', () => {
  const { accepted } = verdicts('non_canonical_A');
  assert.ok(accepted >= 20, `accepted ${accepted}`);
});

test('a non-canonical R never verifies', () => {
  const { accepted, rejected } = verdicts('non_canonical_R');
  assert.equal(accepted, 0);
  assert.ok(rejected >= 100, `rejected ${rejected}`);
});

test('keys and R with a torsion component: the cofactorless equation decides (a low-order residue fails)', () => {
  const mixed = vectors.filter(
    (v) => v.flags.has('low_order_component_A') && !v.flags.has('low_order_A') && !v.flags.has('low_order_R'),
  );
  const clean = mixed.filter((v) => !v.flags.has('low_order_residue') && !v.flags.has('non_canonical_R'));
  const residue = mixed.filter((v) => v.flags.has('low_order_residue') && !v.flags.has('non_canonical_R'));
  assert.ok(clean.length >= 10 && residue.length >= 10, `${clean.length} clean, ${residue.length} residue`);
  for (const v of clean) assert.equal(ed25519Verify(v.key, v.msg, v.sig), true, `vector ${v.number}`);
  for (const v of residue) assert.equal(ed25519Verify(v.key, v.msg, v.sig), false, `vector ${v.number}`);
});

test('S >= L is refused: every accepted vector with S + L in place of S', () => {
  let checked = 0;
  for (const v of vectors.filter((x) => x.expected)) {
    let s = 0n;
    for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(v.sig[i]!);
    s += L;
    if (s >= 2n ** 256n) continue;
    const sig = v.sig.slice();
    for (let i = 32; i < 64; i++) {
      sig[i] = Number(s & 0xffn);
      s >>= 8n;
    }
    assert.equal(ed25519Verify(v.key, v.msg, sig), false, `vector ${v.number} with S + L`);
    assert.equal(ed25519VerifyPortable(v.key, v.msg, sig), false, `vector ${v.number} with S + L (portable)`);
    checked++;
  }
  assert.ok(checked >= 100, `${checked} checked`);
});
