/**
 * Proving that never works for nothing (real proofs, this node's prover): a request given up while
 * it waits leaves the queue, one given up while it is made is stopped, one given up once made counts
 * as made for nothing; each drop is logged at debug with what the proof was for and why, and the
 * proving time of dropped proofs is counted apart from the used ones. A request without a signal of
 * its own ends with the work that asked for it (an API request's deadline).
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, test } from 'node:test';
import { pino } from 'pino';
import { SHIPPED_CIRCUITS_DIR } from '../../../src/zk/circuit-folder.ts';
import { Groth16ProofSystem } from '../../../src/zk/groth16-system.ts';
import { withProofDeadline } from '../../../src/zk/index.ts';

const lines: Record<string, unknown>[] = [];
const logger = pino(
  { level: 'debug' },
  new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  }),
);
const zk = new Groth16ProofSystem({ circuits: SHIPPED_CIRCUITS_DIR, logger });
after(() => zk.close());

const drops = () => lines.filter((l) => l.msg === 'proof request dropped');
const started = () => {
  let resolve!: () => void;
  const p = new Promise<void>((r) => {
    resolve = r;
  });
  return { p, onStart: () => resolve() };
};

test('given up while waiting: it leaves the queue, nothing was proved for it', async () => {
  await zk.proveZkSign(1n, [2n]); // the prover is up
  const before = drops().length;
  const first = zk.proveZkSign(3n, [4n], { what: 'first' });
  const giveUp = new AbortController();
  const second = zk.proveZkSign(5n, [6n], { signal: giveUp.signal, what: 'second' });
  giveUp.abort('the client left');
  await assert.rejects(second, /no longer needed/);
  await first;
  const d = drops().slice(before);
  assert.equal(d.length, 1);
  assert.deepEqual(
    {
      circuit: d[0]!.circuit,
      for: d[0]!.for,
      when: d[0]!.when,
      reason: d[0]!.reason,
      proved_ms: d[0]!.proved_ms,
    },
    { circuit: 'zksig', for: 'second', when: 'waiting', reason: 'the client left', proved_ms: 0 },
  );
});

test('given up while it is made: the prover stops, its time counts as wasted; the next proof is made', async () => {
  const wastedBefore = zk.proverStats.wastedS;
  const before = drops().length;
  const s = started();
  const giveUp = new AbortController();
  const p = zk.proveZkSign(7n, [8n], { signal: giveUp.signal, what: 'slot 9', onStart: s.onStart });
  await s.p;
  await new Promise((r) => setTimeout(r, 30));
  giveUp.abort('slot 9: the parent is no longer the tip');
  await assert.rejects(p, /no longer needed/);
  const d = drops().slice(before);
  assert.equal(d.length, 1);
  assert.equal(d[0]!.when, 'under way');
  assert.equal(d[0]!.reason, 'slot 9: the parent is no longer the tip');
  assert.ok((d[0]!.proved_ms as number) > 0);
  assert.ok(zk.proverStats.wastedS > wastedBefore);
  await zk.proveZkSign(7n, [8n]);
});

test('given up once made: made for nothing, its time moves from used to wasted', async () => {
  const giveUp = new AbortController();
  await zk.proveZkSign(9n, [10n], { signal: giveUp.signal, what: 'cover' });
  const { usedS, wastedS } = zk.proverStats;
  giveUp.abort('the epoch of the cover proofs ended');
  const d = drops().at(-1)!;
  assert.equal(d.when, 'made');
  assert.equal(d.for, 'cover');
  const moved = (d.proved_ms as number) / 1000;
  assert.ok(moved > 0);
  assert.ok(Math.abs(zk.proverStats.wastedS - (wastedS + moved)) < 0.002);
  assert.ok(Math.abs(zk.proverStats.usedS - (usedS - moved)) < 0.002);
});

test('a request without a signal ends with the deadline of the work that asked for it', async () => {
  const deadline = new AbortController();
  const p = withProofDeadline(deadline.signal, () => zk.proveZkSign(11n, [12n]));
  deadline.abort('the API request timed out');
  await assert.rejects(p, /no longer needed/);
  assert.equal(drops().at(-1)!.reason, 'the API request timed out');
});
