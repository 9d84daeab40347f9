/** The Blend admission puzzle (F: blend/proofs/src/quota/pow.rs tests). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BLEND_POW_V1,
  powTicket,
  powTicketSatisfies,
  randomPowNonce,
  solvePowPuzzle,
} from '../../../src/crypto/blend/pow.ts';
import { FR_MODULUS, leBytesToBigint } from '../../../src/crypto/field.ts';
import { validWorkQuotaInputs } from './poq-fixtures.ts';

const hex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));

// F: blend/proofs/src/quota/pow.rs::tests::pow_ticket_dst_encoding
test('pow_ticket_dst_encoding', () => {
  assert.equal(BLEND_POW_V1, leBytesToBigint(hex('424c454e445f504f575f5631')));
});

// F: blend/proofs/src/quota/pow.rs::tests::fixture_solution_satisfies_its_difficulty
test('fixture_solution_satisfies_its_difficulty', () => {
  const { public: pub, witness } = validWorkQuotaInputs(new Uint8Array(32), 1n);
  const ticket = powTicket(pub.leader.pol_epoch_nonce, witness.pow_nonce);
  assert.ok(powTicketSatisfies(ticket, pub.pow.pow_blend_difficulty));
  // Strict: a ticket equal to the difficulty is not admitted.
  assert.ok(!powTicketSatisfies(ticket, ticket));
  assert.ok(powTicketSatisfies(ticket, ticket + 1n));
});

// F: blend/proofs/src/quota/pow.rs::tests::solved_puzzle_satisfies_its_difficulty
test('solved_puzzle_satisfies_its_difficulty', () => {
  const difficulty = (FR_MODULUS - 1n) >> 10n;
  const nonce = solvePowPuzzle(42n, difficulty, 1_000_000);
  assert.ok(nonce !== undefined);
  assert.ok(powTicketSatisfies(powTicket(42n, nonce), difficulty));
});

// F: blend/proofs/src/quota/pow.rs::tests::exhausted_budget_yields_no_solution
test('exhausted_budget_yields_no_solution', () => {
  assert.equal(solvePowPuzzle(42n, 1n, 10), undefined);
});

test('a zero difficulty admits nothing and spends no attempt', () => {
  let draws = 0;
  assert.equal(
    solvePowPuzzle(42n, 0n, 1000, (b) => {
      draws++;
      b.fill(0);
    }),
    undefined,
  );
  assert.equal(draws, 0);
});

test('nonces: top two bits cleared, draws at or above p rejected and drawn again', () => {
  const draws = [new Uint8Array(32).fill(0xff), new Uint8Array(32).fill(0x07)];
  let i = 0;
  const nonce = randomPowNonce((b) => b.set(draws[i++]!));
  // 0x3fff..ff >= p is rejected; the second draw is taken as it is.
  assert.equal(i, 2);
  assert.equal(nonce, leBytesToBigint(new Uint8Array(32).fill(0x07)));
  for (let k = 0; k < 50; k++) assert.ok(randomPowNonce() < FR_MODULUS);
});
