/**
 * The Blend puzzle on its worker thread: a solution's ticket is below the difficulty, a zero difficulty
 * admits none (nothing is searched), and a cancelled search ends without a solution while the next
 * one still finds one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PuzzleSolver } from '../../../src/blend/puzzle-solver.ts';
import { powTicket, powTicketSatisfies } from '../../../src/crypto/blend/pow.ts';
import { FR_MODULUS } from '../../../src/crypto/field.ts';

const EPOCH_NONCE = 12345n;
/** About one ticket in 64 is below it. */
const EASY = FR_MODULUS / 64n;

test('the solver finds a nonce whose ticket is below the difficulty, and stops when cancelled', async () => {
  const solver = new PuzzleSolver();
  try {
    const s = await solver.solve(EPOCH_NONCE, EASY);
    assert.ok(s !== undefined);
    assert.ok(powTicketSatisfies(powTicket(EPOCH_NONCE, s.nonce), EASY));
    assert.ok(s.attempts >= 1);

    assert.equal(await solver.solve(EPOCH_NONCE, 0n), undefined, 'a zero difficulty admits no ticket');

    // A difficulty no ticket meets in practice: the search runs until it is cancelled.
    const controller = new AbortController();
    const hopeless = solver.solve(EPOCH_NONCE, 1n, controller.signal);
    setTimeout(() => controller.abort(), 50);
    assert.equal(await hopeless, undefined);
    const again = await solver.solve(EPOCH_NONCE, EASY);
    assert.ok(again !== undefined && powTicketSatisfies(powTicket(EPOCH_NONCE, again.nonce), EASY));
  } finally {
    await solver.close();
  }
});
