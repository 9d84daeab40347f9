/**
 * Crash safety: a child process (crash-writer.ts) commits a growing chain with forks, reorgs, batches and
 * pruning as fast as it can, and is killed with SIGKILL at random moments. After each kill the store is
 * reopened (taking over the dead child's lock) and checked:
 * - the chain-store invariants hold (canonical heights 0..top linked by parents, by-slot mirror, tx index
 *   exactly the txs of canonical blocks, tip = top canonical block, lib canonical);
 * - no partial commit is visible: every stored block has its body, info, events and tx list, no piece of
 *   an unstored block remains, and the store equals, byte for byte through the read API, the
 *   deterministic model replayed up to the commit count the store holds;
 * - no acknowledged commit is lost: that count is the child's last printed `committed N`, or one more (a
 *   commit made durable just before the kill, not yet printed).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { childExecArgv } from '@logos-ts/shared/runtime';
import { openStore } from '../../../src/storage/open.ts';
import { checkInvariants, prng, randInt, tempDir } from '../../utils/storage.ts';
import { CrashModel } from './crash-model.ts';

const writer = new URL('./crash-writer.ts', import.meta.url).pathname;
const SEED = 0x0c0ffee;
/** 15 kills by default; STORAGE_CRASH_KILLS=N for a longer soak. */
const KILLS = Number(process.env.STORAGE_CRASH_KILLS ?? 15);

interface Run {
  pid: number;
  lines: string[];
  ready: bigint | undefined;
  acked: bigint | undefined;
}

/** Runs the writer until it has been up for `delayMs` after printing `ready` (or after spawn), then kills it. */
async function runAndKill(dir: string, delayMs: number, fromSpawn: boolean): Promise<Run> {
  const child = spawn(process.execPath, [...childExecArgv(), writer, dir, String(SEED)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run: Run = { pid: child.pid!, lines: [], ready: undefined, acked: undefined };
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  let buffered = '';
  let readyResolve: () => void = () => {};
  const ready = new Promise<void>((r) => {
    readyResolve = r;
  });
  child.stdout!.on('data', (d: Buffer) => {
    buffered += d.toString();
    let nl = buffered.indexOf('\n');
    while (nl >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      run.lines.push(line);
      const [word, n] = line.split(' ');
      if (word === 'ready') {
        run.ready = BigInt(n!);
        readyResolve();
      } else if (word === 'committed') run.acked = BigInt(n!);
      nl = buffered.indexOf('\n');
    }
  });
  const exited = once(child, 'exit');
  if (!fromSpawn) await Promise.race([ready, exited]);
  await sleep(delayMs);
  const alive = child.exitCode === null && child.signalCode === null;
  child.kill('SIGKILL');
  const [code, signal] = (await exited) as [number | null, string | null];
  // Drain what the child wrote before it died.
  if (!child.stdout!.readableEnded) await once(child.stdout!, 'end');
  assert.ok(alive && signal === 'SIGKILL', `writer ended by itself (code ${code}): ${stderr}`);
  return run;
}

test('the store survives SIGKILL at random moments', { timeout: 60_000 + KILLS * 4_000 }, async (t) => {
  const dir = tempDir(t, 'logos-crash-');
  const rand = prng(0xdead_beef);
  const model = new CrashModel(SEED);
  let acked = 0n;
  let inFlightKept = 0;
  let killsMidStartup = 0;
  const counts: bigint[] = [];
  for (let kill = 0; kill < KILLS; kill++) {
    // Most kills land while the writer is committing; some from spawn, possibly while it opens the
    // store or takes over the previous child's lock.
    const fromSpawn = kill % 5 === 4;
    const run = await runAndKill(dir, fromSpawn ? randInt(rand, 20, 500) : randInt(rand, 50, 400), fromSpawn);
    if (run.ready === undefined) killsMidStartup++;
    else
      assert.ok(run.ready >= acked, `child ${kill} found ${run.ready} commits, ${acked} were acknowledged`);
    if (run.acked !== undefined) acked = run.acked;
    for (const line of run.lines)
      if (line.startsWith('warning'))
        assert.match(line, /took over (the stale lock of process \d+|an unreadable stale lock file)/);

    const warnings: string[] = [];
    const store = await openStore(dir, { onWarning: (m) => warnings.push(m) });
    try {
      // The killed writer's lock is stale. A writer killed before it was ready may not have taken the lock
      // yet (the parent released its own) or may have died between creating and filling the lock file.
      if (run.ready !== undefined)
        assert.deepEqual(warnings, [
          `data directory ${dir}: took over the stale lock of process ${run.pid}, which is no longer running`,
        ]);
      else {
        assert.ok(warnings.length <= 1);
        for (const w of warnings)
          assert.match(
            w,
            new RegExp(`took over (the stale lock of process ${run.pid},|an unreadable stale lock file)`),
          );
      }
      checkInvariants(store.kv, store.chain);
      const found = store.chain.meta().lastOnlineMs ?? 0n;
      assert.ok(found >= acked, `kill ${kill}: the store holds ${found} commits, ${acked} were acknowledged`);
      assert.ok(
        found <= acked + 1n,
        `kill ${kill}: the store holds ${found} commits, only ${acked} (+1) were made`,
      );
      if (found === acked + 1n) inFlightKept++;
      acked = found;
      while (model.counter < found) model.step();
      model.verify(store.chain);
      counts.push(found);
    } finally {
      await store.close();
    }
  }
  const growth = counts.map((c, i) => c - (counts[i - 1] ?? 0n));
  t.diagnostic(
    `${KILLS} kills (${killsMidStartup} before the writer was ready); commits per run: ${growth.join(' ')}`,
  );
  t.diagnostic(`commits in total ${acked}; durable-but-unacknowledged commits found: ${inFlightKept}`);
  t.diagnostic(`model steps: ${JSON.stringify(model.stats)}`);
  // The steps are deterministic: from 150 commits on, the run has had reorgs (some to shorter branches),
  // side forks, import batches and pruning.
  assert.ok(acked >= 150n, `the writer made only ${acked} commits`);
  const s = model.stats;
  assert.ok(s.reorg > 10 && s.shorterReorg > 5 && s.sideFork > 5 && s.batch > 10 && s.prunedBlocks > 100);
});
