/**
 * A start-up self-check of the cryptographic core against pinned reference vectors: if any primitive
 * disagrees with the reference, the node must not produce or accept blocks.
 */
import { bytesToHex } from './codec/hex.ts';
import { blake2b256 } from './crypto/blake2b.ts';
import { ed25519PublicKey, ed25519Verify } from './crypto/ed25519.ts';
import { frFromBytes, frToBytes } from './crypto/field.ts';
import { digest } from './crypto/poseidon2/index.ts';
import { zkPublicKey } from './crypto/zk-keys.ts';
import { noteId } from './mantle/note.ts';

export interface SelfCheckResult {
  name: string;
  ok: boolean;
}

const hex = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'));

const CCTV_MIXED_KEY = '10eb7c3acfb2bed3e0d6ab89bf5a3d6afddd1176ce4812e38d9fd485058fdb1f';
const CCTV_R = '36684ea91032ba5b1dbab2d02f4debc74c3327f2b3802e2e4d371aa42b12b56b';

/** [public key, message, signature, dalek's verdict]. */
const ED25519_VERIFY_CHECKS: readonly (readonly [string, string, string, boolean])[] = [
  // CCTV 3: small-order A (y = 0)
  [
    '00'.repeat(32),
    'ed25519vectors 3',
    `${CCTV_R}05ba9a796274d80437afa36f1236563f2f3b0aa84cecddc3d20914615ba4fe02`,
    true,
  ],
  // CCTV 11: non-canonical A (y = p)
  [
    `ed${'ff'.repeat(30)}7f`,
    'ed25519vectors',
    `${CCTV_R}05ba9a796274d80437afa36f1236563f2f3b0aa84cecddc3d20914615ba4fe02`,
    true,
  ],
  // CCTV 5: small-order R
  [
    CCTV_MIXED_KEY,
    'ed25519vectors 3',
    `${'00'.repeat(32)}9472a69cd9a701a50d130ed52189e2455b23767db52cacb8716fb896ffeeac09`,
    true,
  ],
  // CCTV 17: non-canonical R (y = p)
  [
    CCTV_MIXED_KEY,
    'ed25519vectors 3',
    `ed${'ff'.repeat(30)}7fad7a355469b5c87e550469f6b2de409ee723acd584bf35f86b80c384e8ceb702`,
    false,
  ],
  // CCTV 6: only the cofactored equation holds
  [
    CCTV_MIXED_KEY,
    'ed25519vectors 10',
    `${CCTV_R}c02e2b9e63e385c058bf62b14b3a2b29ccefe8e38ddb536bc3f9865320a3d801`,
    false,
  ],
  // CCTV 7: a key and an R with torsion components, the cofactorless equation holds
  [
    CCTV_MIXED_KEY,
    'ed25519vectors',
    `${CCTV_R}bbfd00bd9c259d8d222d15e67a3d8228585050dbb9b9585be20d8fadc721da03`,
    true,
  ],
  // RFC 8032 test 1 with S + L in place of S
  [
    'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    '',
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901554c8c7872aa064e049dbb3013fbf29380d25bf5f0595bbe24655141438e7a101b',
    false,
  ],
];

const CHECKS: readonly [string, () => boolean][] = [
  [
    'blake2b-256',
    () =>
      bytesToHex(blake2b256(new TextEncoder().encode('abc'))) ===
      'bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319',
  ],
  [
    'ed25519',
    () =>
      bytesToHex(
        ed25519PublicKey(hex('8b75aeda4d855182111d0e8c1c8620f71e33b3d1012aa548fce5d84f7bdff7d3')),
      ) === '6afedd9a7a92bbe681082fb793e4742a986d2b3c5a1ca898a9849e83102ea490',
  ],
  [
    // ed25519-dalek 2.2 `verify` rules (kms/keys/src/keys/ed25519/public.rs), on C2SP CCTV
    // ed25519vectors as ed25519-dalek's tests/validation_criteria.rs judges them: a small-order key,
    // a non-canonical key and a small-order R verify; a non-canonical R and a signature that only a
    // cofactored check accepts do not; a key with a torsion component verifies cofactorlessly;
    // S = S' + L (RFC 8032 test 1) is refused.
    'ed25519-verify',
    () =>
      ED25519_VERIFY_CHECKS.every(
        ([pk, msg, sig, expected]) =>
          ed25519Verify(hex(pk), new TextEncoder().encode(msg), hex(sig)) === expected,
      ),
  ],
  [
    'poseidon2',
    () => digest([1n, 2n]) === 14118544982895877636855211757199904519359053761360294109973292038354361461611n,
  ],
  [
    'zk-key',
    () =>
      bytesToHex(
        frToBytes(
          zkPublicKey(frFromBytes(hex('3108143181e46ec98f47462139afd3d5ecf990b8e90bd4974ffbe6174d645c29'))),
        ),
      ) === 'aefaa7bb26898c25ded42a97ddaf5abc2d8ea1c4d58e48d3f8316dda693a8706',
  ],
  [
    'note-id',
    () =>
      noteId(new Uint8Array(32), 0, { value: 100n, pk: 456n }) ===
      7557997998773395727489806263315711564569794358720487479582958381680367418066n,
  ],
];

export function runSelfCheck(): SelfCheckResult[] {
  return CHECKS.map(([name, fn]) => {
    try {
      return { name, ok: fn() };
    } catch {
      return { name, ok: false };
    }
  });
}
