/**
 * The single-node devnet as `npm start` runs it (the devnet deployment: 1 s slots, f = 1/5, real
 * Groth16 proofs of leadership) for 60 seconds: with no transactions the tip's UTXO root never
 * changes, so the leader proves its coming wins ahead and its blocks use those proofs. The first 15
 * slots are the prover's warm-up (its first proofs start with the node) and are not counted; one block
 * without a proof made ahead is tolerated for a loaded machine. How many blocks land within their
 * slot is a timing figure, measured by the benchmark `chain.own_block_in_slot_pct`
 * (bench/leader.bench.ts), not asserted here.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { devnetConfigYaml, spawnCli } from '../../utils/cli-process.ts';

const RUN_MS = 60_000;
const WARM_UP_SLOTS = 15;

interface Line {
  readonly msg: string;
  readonly module?: string;
  readonly slot?: number;
  readonly late_slots?: number;
  readonly proved_ahead?: boolean;
}

test('devnet: own blocks use proofs made ahead when the tip did not change', {
  timeout: 150_000,
}, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'logos-own-blocks-'));
  try {
    writeFileSync(join(dir, 'devnet.yaml'), devnetConfigYaml(), { mode: 0o600 });
    const p = spawnCli(
      ['start', '--config', 'devnet.yaml', '--log-format', 'json', '--log-level', 'debug'],
      dir,
    );
    const exited = new Promise<number | null>((r) => p.once('exit', (code) => r(code)));
    const lines: Line[] = [];
    createInterface({ input: p.stdout! }).on('line', (text) => {
      try {
        lines.push(JSON.parse(text) as Line);
      } catch {
        // not a log line
      }
    });
    await new Promise((r) => setTimeout(r, RUN_MS));
    p.kill('SIGINT');
    assert.equal(await exited, 0, 'the node stopped cleanly');

    const ready = lines.find((l) => l.msg === 'chain ready');
    assert.ok(ready, 'the node started');
    const leader = lines.filter((l) => l.module === 'leader');
    const produced = leader.filter((l) => l.msg === 'block produced');
    const skipped = leader.filter(
      (l) => l.msg === 'won the slot while the previous block is still being made',
    );
    const first = Math.min(...produced.map((l) => l.slot!), ...skipped.map((l) => l.slot!));
    const counted = (l: Line) => l.slot! >= first + WARM_UP_SLOTS;
    const blocks = produced.filter(counted);
    const late = blocks.filter((l) => l.late_slots! > 0);
    const missed = skipped.filter(counted);
    const wins = blocks.length + missed.length;
    const summary = `${wins} won slots after the warm-up, ${blocks.length} blocks, ${late.length} late (slots ${late.map((l) => l.slot).join(', ')}), ${missed.length} passed over`;
    t.diagnostic(summary);
    assert.ok(blocks.length >= 2, `blocks after the warm-up: ${summary}`);
    const notAhead = blocks.filter((l) => l.proved_ahead !== true);
    assert.ok(
      notAhead.length <= 1,
      `blocks use proofs made ahead (not: slots ${notAhead.map((l) => l.slot).join(', ')}): ${summary}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
