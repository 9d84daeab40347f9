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
    // ed25519-dalek `verify` semantics (kms/keys/src/keys/ed25519/public.rs), which OpenSSL must show:
    // a small-order key and its non-canonical encoding verify; a mixed-order key whose signature only
    // a cofactored check accepts does not.
    'ed25519-verify',
    () => {
      const msg = new TextEncoder().encode('logos ed25519 selfcheck');
      const r = 'd33214c4951378f2b051a871704bd91febd42a773f9d89872b80b4d27f8a6c81';
      const sig = hex(`${r}2d5c685763714ae3916c65ea2f171bebeb64cb61ee6b9ad92013fab79ca86804`);
      return (
        ed25519Verify(hex(`01${'00'.repeat(31)}`), msg, sig) &&
        ed25519Verify(hex(`ee${'ff'.repeat(30)}7f`), msg, sig) &&
        !ed25519Verify(
          hex('73d07eb170830342dd859ae12975b4a522f6cdc9e16e123384df5900baa5dcb3'),
          msg,
          hex(`${r}bafb2012858d70180493b604372b5d9ad7dea446a3b6779cf382a11be0653907`),
        )
      );
    },
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
