/**
 * The reference's IBD tests (services/chain/chain-network/src/bootstrap/ibd.rs) with their literal
 * values: blocks named by one-byte ids (`[id; 32]`), peers serving a chain from the newest block the
 * requester knows, and a chain that refuses a block whose parent it lacks and one it already has.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import type { Block } from '../../src/block/block.ts';
import { BlockRejected } from '../../src/chain/index.ts';
import { bytesEqual, bytesToHex } from '../../src/codec/hex.ts';
import type { GetTipResponse, KnownBlocks } from '../../src/network/wire/sync-messages.ts';
import { SyncError } from '../../src/sync/errors.ts';
import { type IbdSettings, runIbd } from '../../src/sync/ibd.ts';
import { APPLY_WINDOW } from '../../src/sync/orphans.ts';
import { waitUntil } from '../utils/wait-until.ts';

const GENESIS_ID = 0;
const hid = (b: number) => new Uint8Array(32).fill(b);

/** F's test `Block::new(id, parent, slot, height)`, carried in a block whose header names its parent. */
interface TBlock {
  readonly id: Uint8Array;
  readonly parent: Uint8Array;
  readonly slot: bigint;
  readonly height: number;
  readonly block: Block;
}
const byBlock = new WeakMap<Block, TBlock>();
function B(id: number, parent: number, slot: number, height: number): TBlock {
  const block = {
    header: {
      parent_block: hid(parent),
      slot: BigInt(slot),
      body_root: new Uint8Array(32),
      proof_of_leadership: {
        proof: new Uint8Array(128),
        entropy_contribution: 0n,
        leader_key: new Uint8Array(32),
        voucher_cm: 0n,
      },
    },
    signature: new Uint8Array(64),
    uncle_headers: [],
    transactions: [],
  } as unknown as Block;
  const t = { id: hid(id), parent: hid(parent), slot: BigInt(slot), height, block };
  byBlock.set(block, t);
  return t;
}
const genesis = () => B(GENESIS_ID, GENESIS_ID, 0, 0);

/** F's `MockBlockProcessor`: a block tree from genesis; `parentMissingOnce` refuses the first block once. */
class MockChain {
  readonly blocks = new Map<string, TBlock>([[bytesToHex(hid(GENESIS_ID)), genesis()]]);
  failures = 0;
  parentMissingFailures = 0;
  /** The ids (their fill byte) of the blocks submitted, in order. */
  readonly submitted: number[] = [];
  constructor(private parentMissingOnce = false) {}
  has = (id: Uint8Array) => this.blocks.has(bytesToHex(id));
  blockRef = (id: Uint8Array) => this.blocks.get(bytesToHex(id));
  tip = (): TBlock => [...this.blocks.values()].reduce((a, b) => (b.height > a.height ? b : a));
  lib = (): TBlock => this.blocks.get(bytesToHex(hid(GENESIS_ID)))!;
  submit = async (block: Block) => {
    const t = byBlock.get(block)!;
    this.submitted.push(t.id[0]!);
    if (this.parentMissingOnce) {
      this.parentMissingOnce = false;
      this.parentMissingFailures++;
      throw new BlockRejected('BLOCK_PARENT_MISSING', 'parent missing (once)');
    }
    if (this.has(t.id)) throw new BlockRejected('BLOCK_ALREADY_APPLIED', 'already applied');
    // F's mock processor: the consensus refuses a block whose parent it does not have, and that error
    // reaches IBD as an invalid block (`ChainError::InvalidBlock`), not as the recoverable ParentMissing.
    if (!this.has(t.parent)) {
      this.failures++;
      throw new BlockRejected('BLOCK_INVALID', 'consensus error: parent missing');
    }
    this.blocks.set(bytesToHex(t.id), t);
    return {} as never;
  };
}

/** F's test `BlockProvider`: a chain and the tips it answers in turn (the last one repeats; null fails). */
class Provider {
  private calls = 0;
  constructor(
    readonly chain: TBlock[],
    private readonly tips: (TBlock | null)[],
  ) {}
  nextTip(): TBlock | null {
    return this.tips[Math.min(this.calls++, this.tips.length - 1)]!;
  }
  streamToTarget(target: Uint8Array, known: Uint8Array[]): TBlock[] | undefined {
    const t = this.chain.findIndex((b) => bytesEqual(b.id, target));
    if (t < 0) return undefined;
    let start = 0;
    for (let i = t; i >= 0; i--)
      if (known.some((k) => bytesEqual(k, this.chain[i]!.id))) {
        start = i + 1;
        break;
      }
    return this.chain.slice(start, t + 1);
  }
}

const config = (peers: string[], over: Partial<IbdSettings> = {}): IbdSettings => ({
  peers,
  discover_connected_peers: false,
  max_connected_peers_to_sample: 16,
  tips_fetch_max_attempts: 3,
  tips_fetch_min_delay: 250,
  tips_fetch_max_delay: 1000,
  round_delay: 1000,
  max_rejected_cache_size: 0,
  ...over,
});

const asTip = (t: TBlock): GetTipResponse & { kind: 'Tip' } => ({
  kind: 'Tip',
  tip: t.id,
  slot: t.slot,
  height: BigInt(t.height),
});

/** F's `MockNetworkAdapter` as IBD's dependencies. */
function deps(chain: MockChain, providers: [string, Provider][], signal = new AbortController().signal) {
  return {
    chain: chain as never,
    requestTip: async (peer: string) => {
      const t = providers.find(([p]) => p === peer)![1].nextTip();
      if (!t) throw new Error('cannot provide tip');
      return asTip(t);
    },
    sampleTips: async (max: number) =>
      providers
        .slice(0, max)
        .map(([peer, p]) => ({ peer, t: p.nextTip() }))
        .filter((x) => x.t !== null)
        .map(({ peer, t }) => ({ peer, tip: asTip(t!) })),
    source: async function* (target: Uint8Array, known: KnownBlocks) {
      const ks = [known.local_tip, known.latest_immutable_block, ...known.additional_blocks];
      const blocks = providers.map(([, p]) => p.streamToTarget(target, ks)).find((x) => x !== undefined);
      if (!blocks) throw new Error(`no peer has target ${bytesToHex(target)}`);
      for (const b of blocks) yield { block: b.block, id: b.id, peer: 'peer' };
    },
    network: { penalize: () => {} },
    logger: pino({ level: 'silent' }),
    signal,
  };
}

const P = 'ibd.rs';
const name = (n: string) => `${n} (services/chain/chain-network/src/bootstrap/${P})`;

test(name('no_peers_configured'), async () => {
  const chain = new MockChain();
  assert.equal(await runIbd(config([]), deps(chain, [])), false);
  assert.equal(chain.blocks.size, 1);
});

test(name('discovers_connected_peers_when_peer_ids_are_unavailable'), async () => {
  const peer = new Provider([genesis(), B(1, GENESIS_ID, 1, 1), B(2, 1, 2, 2)], [B(2, 1, 2, 2)]);
  const chain = new MockChain();
  await runIbd(config([], { discover_connected_peers: true, round_delay: 10 }), deps(chain, [['0', peer]]));
  assert.ok(peer.chain.every((b) => chain.has(b.id)));
});

test(name('single_peer'), async () => {
  const peer = new Provider([genesis(), B(1, GENESIS_ID, 1, 1), B(2, 1, 2, 2)], [B(2, 1, 2, 2)]);
  const chain = new MockChain();
  await runIbd(config(['0'], { round_delay: 10 }), deps(chain, [['0', peer]]));
  assert.ok(peer.chain.every((b) => chain.has(b.id)));
});

test(name('multiple_peers'), async () => {
  const peer0 = new Provider([genesis(), B(1, GENESIS_ID, 1, 1), B(2, 1, 2, 2)], [B(2, 1, 2, 2)]);
  const peer1 = new Provider(
    [genesis(), B(3, GENESIS_ID, 3, 1), B(4, 3, 4, 2), B(5, 4, 5, 3)],
    [B(5, 4, 5, 3)],
  );
  const chain = new MockChain();
  await runIbd(
    config(['0', '1'], { round_delay: 10 }),
    deps(chain, [
      ['0', peer0],
      ['1', peer1],
    ]),
  );
  assert.ok(peer0.chain.every((b) => chain.has(b.id)));
  assert.ok(peer1.chain.every((b) => chain.has(b.id)));
});

test(name('all_peers_fail_tip'), async () => {
  const peer0 = new Provider([genesis()], [null]);
  const peer1 = new Provider([genesis()], [null]);
  const fast = { tips_fetch_min_delay: 1, tips_fetch_max_delay: 4 };
  await assert.rejects(
    runIbd(
      config(['0', '1'], fast),
      deps(new MockChain(), [
        ['0', peer0],
        ['1', peer1],
      ]),
    ),
    (e: unknown) => e instanceof SyncError && e.code === 'SYNC_ALL_PEERS_FAILED',
  );
});

test(name('one_peer_fails_tip'), async () => {
  const peer0 = new Provider([genesis()], [null]);
  const peer1 = new Provider([genesis(), B(1, GENESIS_ID, 1, 1), B(2, 1, 2, 2)], [B(2, 1, 2, 2)]);
  const chain = new MockChain();
  await runIbd(
    config(['0', '1'], { round_delay: 10 }),
    deps(chain, [
      ['0', peer0],
      ['1', peer1],
    ]),
  );
  assert.ok(peer1.chain.every((b) => chain.has(b.id)));
});

test(name('all_tips_already_local'), async () => {
  const peer = new Provider([genesis()], [genesis()]);
  const chain = new MockChain();
  assert.equal(await runIbd(config(['0']), deps(chain, [['0', peer]])), true);
  assert.deepEqual(chain.tip().id, hid(GENESIS_ID));
});

test(name('block_apply_error_triggers_cancel'), async () => {
  // Parent (id=100) is not in the chain, so applying block 2 fails. The blocks after it (not in the
  // reference's chain) make the cancellation visible: up to APPLY_WINDOW blocks are submitted ahead of
  // the answers, but the download stops at the failure, so the last block is never submitted.
  const LAST = 2 + APPLY_WINDOW + 2;
  const after = Array.from({ length: LAST - 2 }, (_, i) => B(i + 3, i + 2, i + 3, i + 3));
  const peer = new Provider([genesis(), B(1, GENESIS_ID, 1, 1), B(2, 100, 2, 2), ...after], [after.at(-1)!]);
  const chain = new MockChain();
  const ac = new AbortController();
  const run = runIbd(config(['0'], { round_delay: 10 }), deps(chain, [['0', peer]], ac.signal));
  // Two rounds, each cancelled at block 2 (the tip stays unsynced, so IBD keeps trying until stopped).
  await waitUntil(() => chain.failures >= 2, 10_000, 'two failed applications of block 2');
  ac.abort();
  await assert.rejects(run, { name: 'AbortError' });
  assert.ok(chain.failures > 0, 'process_block must have failed at least once');
  assert.equal(chain.submitted.includes(LAST), false, 'the download was not cancelled at the failure');
  assert.deepEqual(chain.submitted.slice(0, 2), [1, 2]);
  assert.equal(chain.has(hid(1)), true);
  assert.equal(chain.has(hid(2)), false);
});

test(name('recoverable_block_apply_error_retries_active_download'), async () => {
  const c = [genesis(), B(1, GENESIS_ID, 1, 1)];
  const peer = new Provider(c, [c[1]!]);
  const chain = new MockChain(true);
  await runIbd(config(['0'], { round_delay: 10 }), deps(chain, [['0', peer]]));
  assert.equal(chain.parentMissingFailures, 1);
  assert.ok(chain.has(c[1]!.id));
});

test(name('tip_advances_between_rounds'), async () => {
  const c = [genesis(), B(1, GENESIS_ID, 1, 1), B(2, 1, 2, 2)];
  const peer = new Provider(c, [B(1, GENESIS_ID, 1, 1), B(2, 1, 2, 2)]);
  const chain = new MockChain();
  await runIbd(config(['0'], { round_delay: 10 }), deps(chain, [['0', peer]]));
  assert.ok(c.every((b) => chain.has(b.id)));
});

test(name('already_applied_prefix_does_not_cancel_download'), async () => {
  const a = B(1, GENESIS_ID, 1, 1);
  const b = B(2, 1, 2, 2);
  const c = B(3, 2, 3, 3);
  const d = B(4, 3, 4, 4);
  const e = B(5, 2, 3, 3);
  const f = B(6, 5, 4, 4);
  const h = B(7, 6, 5, 5);
  const chain = new MockChain();
  for (const x of [a, b, c, d]) await chain.submit(x.block);
  const peer = new Provider([genesis(), a, b, e, f, h], [h]);
  await runIbd(config(['0'], { round_delay: 10 }), deps(chain, [['0', peer]]));
  assert.ok([e, f, h].every((x) => chain.has(x.id)));
});

test(name('all_peers_go_dark_after_first_round'), async () => {
  const peer = new Provider([genesis(), B(1, GENESIS_ID, 1, 1)], [B(1, GENESIS_ID, 1, 1), null]);
  const fast = { tips_fetch_min_delay: 1, tips_fetch_max_delay: 4, round_delay: 10 };
  await assert.rejects(runIbd(config(['0'], fast), deps(new MockChain(), [['0', peer]])), {
    code: 'SYNC_ALL_PEERS_FAILED',
  });
});
