import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import pino from 'pino';
import type { Block } from '../../../src/block/block.ts';
import type { ChainEvents, ProcessedBlock } from '../../../src/chain/interface.ts';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { FR_MODULUS } from '../../../src/crypto/field.ts';
import { zkPublicKey } from '../../../src/crypto/zk-keys.ts';
import { checkTx } from '../../../src/ledger/apply.ts';
import type { LedgerConfig } from '../../../src/ledger/parameters.ts';
import { powTicket } from '../../../src/ledger/pow-claims.ts';
import type { LedgerState } from '../../../src/ledger/state.ts';
import { noteId } from '../../../src/mantle/note.ts';
import { type Op, Opcode, opId } from '../../../src/mantle/ops.ts';
import { Miner, type MinerChain } from '../../../src/pow/miner.ts';
import {
  SecretKeySource,
  searchTickets,
  ticketFromPrefix,
  ticketPrefix,
} from '../../../src/pow/ticket-search.ts';
import { openWinnerStore, type PowWinner } from '../../../src/pow/winners.ts';
import { MemoryKv } from '../../../src/storage/kv.ts';
import { stubBlock } from '../../mocks/chain.ts';
import { signTx, stateWith, TestChain } from '../../mocks/ledger.ts';

/**
 * The chain as the miner sees it (`MinerChain`, a part of `IChain`), driven by a TestChain (the devnet
 * ledger with test proofs); `put` adds a canonical block with a given ledger state instead.
 */
class MinerTestChain extends EventEmitter<ChainEvents> implements MinerChain {
  readonly c = new TestChain();
  readonly states = new Map<string, LedgerState>();
  readonly canonical: { slot: bigint; id: Uint8Array; block: Block }[] = [];
  config: LedgerConfig;

  constructor(slotWindow?: number) {
    super();
    this.config =
      slotWindow === undefined
        ? this.c.ctx.config
        : { ...this.c.ctx.config, pow: { ...this.c.ctx.config.pow, slot_window: slotWindow } };
    this.states.set(bytesToHex(this.c.tip), this.c.state);
  }

  tip() {
    const last = this.canonical.at(-1);
    if (!last) return { id: this.c.tip, slot: this.c.state.slot, height: 0, state: this.c.state };
    return {
      id: last.id,
      slot: last.slot,
      height: this.canonical.length,
      state: this.states.get(bytesToHex(last.id))!,
    };
  }

  stateOf(id: Uint8Array) {
    return this.states.get(bytesToHex(id));
  }

  canonicalBySlot(from: bigint, to: bigint) {
    return this.canonical.filter((b) => b.slot >= from && b.slot <= to).map(({ slot, id }) => ({ slot, id }));
  }

  /** Applies a block (with these txs) on the tip and emits it as processed. */
  extend(txs: Parameters<TestChain['apply']>[0] = [], slot?: bigint, emit = true): ProcessedBlock {
    const block = this.c.block(txs, slot);
    const r = this.c.apply(txs, slot);
    this.states.set(bytesToHex(r.id), r.state);
    this.canonical.push({ slot: block.header.slot, id: r.id, block });
    const pb = this.processed(block, r.id);
    if (emit) this.emit('block', pb);
    return pb;
  }

  /** Adds a canonical block `id` at `slot` with this ledger state (nothing is applied or emitted). */
  put(id: Uint8Array, slot: bigint, state: LedgerState): ProcessedBlock {
    const block = stubBlock(this.tip().id, slot);
    this.states.set(bytesToHex(id), state);
    this.canonical.push({ slot, id, block });
    return this.processed(block, id);
  }

  private processed(block: Block, id: Uint8Array): ProcessedBlock {
    const ref = { id, slot: block.header.slot, height: this.canonical.length };
    return { block, id, height: ref.height, events: [], applied: [block], reverted: [], tip: ref, lib: ref };
  }
}

/** A chain of one canonical block at slot 3 whose ledger state lets every ticket win. */
function oneBlockChain(
  id: Uint8Array,
  nonce: bigint,
  pool: { pool: bigint; epoch_reward: bigint },
): MinerTestChain {
  const base = stateWith({});
  const state = stateWith({
    epoch_state: { ...base.epoch_state, nonce },
    pow: { ...base.pow, target: FR_MODULUS - 1n, ...pool },
  });
  const chain = new MinerTestChain(300);
  chain.put(id, 3n, state);
  return chain;
}

function capture() {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (l: string) => void lines.push(l) });
  return { lines, logger };
}

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const miners: Miner[] = [];
after(async () => {
  await Promise.all(miners.map((m) => m.close()));
});

/** The nice value of each thread of this process (Linux /proc), or undefined elsewhere. */
function threadNices(): Map<number, number> | undefined {
  if (!existsSync('/proc/self/task')) return undefined;
  const out = new Map<number, number>();
  for (const t of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
    out.set(Number(t), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return out;
}

function hexForms(x: bigint): string[] {
  const be = x.toString(16).padStart(64, '0');
  const le = be.match(/../g)!.reverse().join('');
  return [be, le, x.toString(10), be.slice(0, 16), le.slice(0, 16)];
}

describe('ticket search', () => {
  test('the prefix sponge gives powTicket; searchTickets finds only tickets below the target', () => {
    const nonce = 123456789n;
    const hash = new Uint8Array(32).map((_, i) => 255 - i);
    const prefix = ticketPrefix(nonce, hash);
    for (const pk of [0n, 1n, FR_MODULUS - 1n, 987654321987654321n])
      assert.equal(ticketFromPrefix(prefix, pk), powTicket(nonce, hash, pk));
    const target = FR_MODULUS / 8n;
    const r = searchTickets(prefix, target, new SecretKeySource(), 200, 10_000);
    assert.equal(r.attempts, 200);
    assert.ok(r.winners.length > 5 && r.winners.length < 60, `${r.winners.length} winners of 200 at 1/8`);
    for (const w of r.winners) {
      assert.equal(w.publicKey, zkPublicKey(w.secretKey));
      assert.equal(w.ticket, powTicket(nonce, hash, w.publicKey));
      assert.ok(w.ticket < target);
    }
  });

  test('secret keys are distinct field elements spread over the whole field', () => {
    const src = new SecretKeySource(16);
    const seen = new Set<bigint>();
    let high = 0;
    for (let i = 0; i < 2000; i++) {
      const k = src.draw();
      assert.ok(k >= 0n && k < FR_MODULUS);
      seen.add(k);
      if (k > FR_MODULUS / 2n) high++;
    }
    assert.equal(seen.size, 2000);
    assert.ok(high > 850 && high < 1150, `${high} of 2000 above p/2`);
  });
});

describe('Miner', () => {
  test('finds winners on the chain whose claims the ledger accepts; stop() stops new winners; no secret in logs', async () => {
    const chain = new MinerTestChain();
    for (let i = 0; i < 3; i++) chain.extend();
    const store = openWinnerStore(new MemoryKv());
    const { lines, logger } = capture();
    const miner = new Miner({ threads: 2, concurrencyPerBlock: 2 }, { chain, store, logger });
    miners.push(miner);
    miner.start();
    assert.equal(miner.isMining, true);
    await until(() => miner.stats.attempts > 0n, 20_000, 'the first chunk');
    // The workers lowered their own priority, not the process's (the nice value is per thread on Linux).
    if (threadNices() !== undefined) {
      // Each worker lowers its own on its first task; the second may start a little after the first.
      const lowered = () => [...threadNices()!.values()].filter((n) => n === 19).length;
      await until(() => lowered() >= 2, 20_000, 'both workers at nice 19');
      assert.equal(threadNices()!.get(process.pid), 0);
    }
    assert.equal(miner.searching().length, 3, 'the canonical blocks in the window are searched at start');
    chain.extend(); // a processed block joins the search
    assert.equal(miner.searching().length, 4);
    // The devnet target is about p / 256: a few winners come within seconds.
    await until(() => store.ready().length >= 6, 60_000, 'six winners');
    miner.stop();
    assert.equal(miner.isMining, false);
    const n = store.ready().length;
    // The workers finish the chunk they are in and go idle. A round trip to every worker (a rate
    // measurement, 1 ms) is a barrier: it is answered after the worker took the 'idle' and after the
    // chunks it sent before. A worker still searching would send chunks between two such round trips.
    await miner.permutationRate(1);
    const attempts = miner.stats.attempts;
    await miner.permutationRate(1);
    assert.equal(miner.stats.attempts, attempts, 'the workers are idle after stop()');
    assert.equal(store.ready().length, n, 'no winner after stop()');

    const winners: PowWinner[] = store.ready();
    const blocks = new Set(chain.canonical.map((b) => bytesToHex(b.id)));
    const c = chain.c;
    /** A claim of the winner whose reward note is spent in the same transaction (paying the fee), signed with its secret key. */
    const claimTx = (w: PowWinner) => {
      const claimOp: Op = {
        opcode: Opcode.ClaimPowReward,
        payload: { epoch_nonce: w.epochNonce, block_hash: w.blockId, public_key: w.publicKey },
      };
      const reward = c.state.pow.epoch_reward;
      const minted = noteId(opId(claimOp), 0, { value: reward, pk: w.publicKey });
      const spend: Op = {
        opcode: Opcode.Transfer,
        payload: { inputs: [minted], outputs: [{ value: reward - 100_000n, pk: w.publicKey }] },
      };
      return signTx([claimOp, spend], [[], [w.secretKey]], (_h, _m, op) =>
        op.opcode === Opcode.ClaimPowReward ? { type: 'None' } : undefined,
      );
    };
    for (const w of winners) {
      assert.ok(blocks.has(bytesToHex(w.blockId)));
      const own = chain.stateOf(w.blockId)!;
      assert.equal(w.epochNonce, own.epoch_state.nonce);
      assert.equal(w.publicKey, zkPublicKey(w.secretKey));
      assert.ok(w.ticket < own.pow.target);
      // The ledger accepts the claim at the tip (checkTx throws on any rule it breaks).
      checkTx(c.state, c.ctx, claimTx(w), c.state.slot + 1n);
    }
    // One claim applied in a block: the ledger mints the reward and spends the ticket.
    const w = winners[0]!;
    const r = c.apply([claimTx(w)]);
    assert.ok(r.events.some((e) => e.kind === 'Tx' && e.event.payload.type === 'PoWRewardClaimed'));
    assert.ok(c.state.pow.nullifiers.some((x) => x.nullifier === w.ticket));

    const found = lines.filter((l) => l.includes('PoW ticket found'));
    assert.ok(found.length >= 6);
    const first = JSON.parse(found[0]!) as { block_slot: string; ticket: string };
    assert.ok(/^[0-9a-f]{16}$/.test(first.ticket));
    const log = lines.join('\n');
    for (const x of winners)
      for (const form of hexForms(x.secretKey)) assert.ok(!log.includes(form), 'a secret key in the logs');
  });

  test('a block outside the window is not searched; a search ends when its block leaves the window or the chain', async () => {
    const chain = new MinerTestChain(2);
    for (let i = 0; i < 5; i++) chain.extend(); // slots 1..5; window 2: frontier 3, searched 4 and 5
    const store = openWinnerStore(new MemoryKv());
    const { logger } = capture();
    const miner = new Miner({ threads: 1, concurrencyPerBlock: 1 }, { chain, store, logger });
    miners.push(miner);
    miner.start();
    assert.deepEqual(
      miner.searching().map((s) => s.slot),
      [4n, 5n],
    );
    chain.extend(); // slot 6: frontier 4, 4 stays (not below the frontier)
    assert.deepEqual(
      miner.searching().map((s) => s.slot),
      [4n, 5n, 6n],
    );
    chain.extend(undefined, 9n); // frontier 7: 4, 5, 6 leave
    assert.deepEqual(
      miner.searching().map((s) => s.slot),
      [9n],
    );
    // A processed block already outside the window is not searched.
    const late = chain.extend(undefined, 10n, false);
    chain.emit('block', { ...late, tip: { ...late.tip, slot: 12n } });
    assert.deepEqual(
      miner.searching().map((s) => s.slot),
      [],
    );
    // A block that leaves the canonical chain leaves the search.
    const pb = chain.extend(undefined, 11n);
    assert.deepEqual(
      miner.searching().map((s) => s.slot),
      [11n],
    );
    await until(() => miner.stats.attempts > 0n, 20_000, 'some attempts');
    chain.emit('block', { ...pb, applied: [], reverted: [pb.block] });
    assert.deepEqual(miner.searching(), []);
    // With one thread at p/256 there may be winners: only for blocks in the window when searched.
    for (const w of store.ready()) assert.ok([4n, 5n, 6n, 9n, 11n].includes(w.blockSlot));
    await miner.close();
  });

  test('results that arrive after stop() are dropped (every ticket wins)', async () => {
    const id = new Uint8Array(32).fill(5);
    const chain = oneBlockChain(id, 77n, { pool: 10n ** 12n, epoch_reward: 1n });
    const store = openWinnerStore(new MemoryKv());
    const miner = new Miner(
      { threads: 2, concurrencyPerBlock: 2 },
      { chain, store, logger: capture().logger },
    );
    miners.push(miner);
    miner.start();
    await until(() => store.ready().length > 0, 20_000, 'the first winners');
    // Both workers are in the middle of a chunk in which every attempt wins.
    miner.stop();
    const n = store.ready().length;
    // A round trip to every worker: answered after the chunks it sent before it took the 'idle', so
    // those late results have arrived (and were dropped) by then.
    await miner.permutationRate(1);
    assert.equal(store.ready().length, n);
    for (const w of store.ready()) assert.equal(w.ticket, powTicket(77n, id, w.publicKey));
    await miner.close();
  });

  test('the search pauses once the winners held reach what the reward pool can pay', async () => {
    const id = new Uint8Array(32).fill(6);
    // Every ticket wins; the pool pays three rewards.
    const chain = oneBlockChain(id, 78n, { pool: 30n, epoch_reward: 10n });
    const store = openWinnerStore(new MemoryKv());
    const { lines, logger } = capture();
    const miner = new Miner({ threads: 2, concurrencyPerBlock: 2 }, { chain, store, logger });
    miners.push(miner);
    miner.start();
    await until(() => store.ready().length >= 3, 20_000, 'three winners');
    assert.ok(lines.some((l) => l.includes('PoW search paused')));
    // Paused, the workers are idle: between two round trips to every worker (each answered after
    // the chunks sent before it) no chunk arrives, and no winner was added beyond the three.
    await miner.permutationRate(1);
    const attempts = miner.stats.attempts;
    await miner.permutationRate(1);
    assert.equal(miner.stats.attempts, attempts, 'the workers are idle while paused');
    assert.equal(store.ready().length, 3, 'no winner beyond what the pool pays');
    // A claim settles (one winner retired): the next block resumes the search.
    await store.retire([store.ready()[0]!.ticket]);
    const tip = chain.tip();
    chain.emit('block', {
      block: chain.canonical[0]!.block,
      id: tip.id,
      height: tip.height,
      events: [],
      applied: [],
      reverted: [],
      tip,
      lib: tip,
    });
    await until(() => store.ready().length >= 3, 20_000, 'the search resumed');
    assert.ok(lines.some((l) => l.includes('PoW search resumed')));
    await miner.close();
  });

  test('at start, canonical blocks of the window without a kept ledger state (below the LIB) are skipped', async () => {
    const chain = new MinerTestChain();
    for (let i = 0; i < 3; i++) chain.extend();
    chain.states.delete(bytesToHex(chain.canonical[0]!.id));
    const { lines, logger } = capture();
    const miner = new Miner(
      { threads: 1, concurrencyPerBlock: 1 },
      { chain, store: openWinnerStore(new MemoryKv()), logger },
    );
    miners.push(miner);
    miner.start();
    assert.deepEqual(
      miner.searching().map((s) => s.slot),
      [2n, 3n],
    );
    const started = JSON.parse(lines.find((l) => l.includes('PoW mining started'))!) as Record<
      string,
      unknown
    >;
    assert.equal(started.searched, 2);
    assert.equal(started.without_state, 1);
    await miner.close();
    assert.equal(miner.isMining, false);
  });
});
