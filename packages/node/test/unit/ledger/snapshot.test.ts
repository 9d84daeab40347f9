import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DecodeError } from '../../../src/codec/errors.ts';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { Ed25519Signer } from '../../../src/crypto/ed25519.ts';
import { FR_MODULUS, type Fr } from '../../../src/crypto/field.ts';
import { decodeLedgerState, encodeLedgerState } from '../../../src/ledger/snapshot.ts';
import type { EpochState, LedgerState, NoteRecord } from '../../../src/ledger/state.ts';
import { UtxoTree } from '../../../src/ledger/trees/utxo-tree.ts';
import { VoucherTree } from '../../../src/ledger/trees/voucher-tree.ts';
import type { Op } from '../../../src/mantle/ops.ts';
import { Opcode } from '../../../src/mantle/ops.ts';
import type { OpProof } from '../../../src/mantle/proofs.ts';
import { bigintKeys, PMap } from '../../../src/util/pmap.ts';
import { insecureTestZkSign } from '../../../src/zk/insecure-test-proofs.ts';
import {
  declareOp,
  feeOp,
  genesisNotes,
  KEYS,
  newKey,
  type Owned,
  signTx,
  TestChain,
  transfer,
} from '../../mocks/ledger.ts';
import { xorshift32 } from '../../utils/prng.ts';

// ------------------------------------------------------------------ fingerprint of every field

const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const cmpBig = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/** JSON with bigints and byte strings made explicit. */
function j(v: unknown): string {
  return JSON.stringify(v, (_k, x) =>
    typeof x === 'bigint' ? `${x}n` : x instanceof Uint8Array ? `0x${bytesToHex(x)}` : x,
  );
}

function treeFp(t: UtxoTree): unknown {
  const s = t.snapshot();
  return { root: t.root(), size: t.size, height: t.height, leaves: s.leaves };
}

function notesFp(m: PMap<Fr, NoteRecord>): unknown {
  return { size: m.size, entries: m.sortedEntries(cmpBig) };
}

function epochFp(e: EpochState): unknown {
  return {
    epoch: e.epoch,
    nonce: e.nonce,
    utxos: treeFp(e.utxos),
    notes: notesFp(e.notes),
    total_stake: e.total_stake,
    lottery: e.lottery,
    blend_pow_difficulty: e.blend_pow_difficulty,
  };
}

/** Every field of a ledger state, canonically (maps sorted, trees by root and full content). */
function fingerprint(s: LedgerState): string {
  return j({
    block_number: s.block_number,
    slot: s.slot,
    nonce: s.nonce,
    prev_epoch_nonce: s.prev_epoch_nonce,
    occupied_slots: s.occupied_slots.sortedEntries(cmpBig),
    epoch_state: epochFp(s.epoch_state),
    next_epoch_state: epochFp(s.next_epoch_state),
    notes: notesFp(s.notes),
    utxos: treeFp(s.utxos),
    gas: s.gas,
    channels: s.channels.sortedEntries(cmpStr),
    sdp: {
      declarations: s.sdp.declarations.sortedEntries(cmpStr),
      snapshot: s.sdp.snapshot.sortedEntries(cmpStr),
      next_snapshot: s.sdp.next_snapshot.sortedEntries(cmpStr),
      rewards: s.sdp.rewards,
    },
    leader: {
      vouchers: {
        root: s.leader.vouchers.root(),
        ...s.leader.vouchers.snapshot(),
      },
      snapshot: s.leader.snapshot,
      nullifiers: s.leader.nullifiers.sortedEntries(cmpBig),
      pending_rewards: s.leader.pending_rewards,
      claimable_rewards: s.leader.claimable_rewards,
    },
    pow: s.pow,
  });
}

/** Pairs of structures that are often the same object. */
function shared(s: LedgerState): boolean[] {
  return [
    s.notes === s.epoch_state.notes,
    s.notes === s.next_epoch_state.notes,
    s.epoch_state.notes === s.next_epoch_state.notes,
    s.utxos === s.epoch_state.utxos,
    s.utxos === s.next_epoch_state.utxos,
    s.epoch_state.utxos === s.next_epoch_state.utxos,
    s.sdp.declarations === s.sdp.snapshot,
    s.sdp.snapshot === s.sdp.next_snapshot,
  ];
}

/** Decodes the encoding of `s`; checks that what was one object is one object again. */
function roundTrip(s: LedgerState): LedgerState {
  const r = decodeLedgerState(encodeLedgerState(s));
  const before = shared(s);
  shared(r).forEach((same, i) => {
    if (before[i]) assert.ok(same, `sharing ${i} lost`);
  });
  return r;
}

// ------------------------------------------------------------------ a chain with a bit of everything

const CH = new Uint8Array(32).fill(0xc1);
const channelSigner = new Ed25519Signer(new Uint8Array(32).fill(77));
const provider = new Ed25519Signer(new Uint8Array(32).fill(78));
const zk = newKey('snapshot-sdp-zk');
const payee = newKey('snapshot-payee');

/** A transfer paying a generous fee (gas prices change at epoch boundaries). */
function tr(s: LedgerState, inputs: Owned[], payments: { value: bigint; pk: Fr }[]) {
  return transfer(s, inputs, payments, { feeOverride: 100_000n });
}

interface Built {
  c: TestChain;
  /** Spendable notes of the current state. */
  wallet: Owned[];
}

/** Genesis, then a channel + deposit, an SDP declaration, transfers, and epoch changes. */
function buildChain(): Built {
  const c = new TestChain();
  const g = genesisNotes(c.genesis);
  let wallet = g.slice(6);

  // Slot 10: a channel configuration (funded by g[0]) and a transfer paying someone.
  const cfg: Op = {
    opcode: Opcode.ChannelConfig,
    payload: {
      channel: CH,
      parent: new Uint8Array(32),
      keys: [channelSigner.publicKey],
      posting_timeframe: 0,
      posting_timeout: 0,
      configuration_threshold: 1,
      transfer_threshold: 1,
    },
  };
  const multi = (): OpProof => ({ type: 'ChannelMultiSigProof', signatures: [] });
  const cfgTx = signTx([feeOp(g[0]!).op, cfg], [[g[0]!.sk]], (_h, _m, op) =>
    op.opcode === Opcode.ChannelConfig ? multi() : undefined,
  );
  const t1 = tr(c.state, [wallet.shift()!], [{ value: 5_000_000n, pk: payee.publicKey }]);
  c.apply([cfgTx, t1.tx], 10n);
  wallet.push(...t1.outputs);

  // Slot 50: a deposit into the channel and an SDP declaration with g[3] as service note.
  const deposit: Op = {
    opcode: Opcode.ChannelDeposit,
    payload: { channel_id: CH, inputs: [g[2]!.id], metadata: Uint8Array.of(1, 2) },
  };
  const depTx = signTx([feeOp(g[1]!).op, deposit], [[g[1]!.sk], [g[2]!.sk]]);
  const declare = declareOp(g[3]!.id, provider.publicKey, zk.publicKey);
  const declTx = signTx([feeOp(g[4]!).op, declare], [[g[4]!.sk], []], (hash, msg, op) =>
    op.opcode === Opcode.SDPDeclare
      ? {
          type: 'ZkAndEd25519Sigs',
          zk_sig: insecureTestZkSign(msg, [g[3]!.sk, zk.secretKey]),
          ed25519_sig: provider.sign(hash),
        }
      : undefined,
  );
  c.apply([depTx, declTx], 50n);
  assert.equal(c.state.channels.size, c.genesis.state.channels.size + 1);
  assert.equal(c.state.sdp.declarations.size, 1);

  // Slot 210 (epoch 1) and 420 (epoch 2): transfers spending earlier outputs (frees positions).
  for (const slot of [210n, 420n]) {
    const a = tr(c.state, [wallet.shift()!, wallet.pop()!], [{ value: 1_000_000n, pk: KEYS[1]!.publicKey }]);
    const b = tr(
      c.state,
      [wallet.shift()!],
      [
        { value: 2_000_000n, pk: payee.publicKey },
        { value: 3_000_000n, pk: KEYS[2]!.publicKey },
      ],
    );
    c.apply([a.tx, b.tx], slot);
    wallet = [...wallet, ...a.outputs, ...b.outputs].filter((o) => c.state.notes.has(o.id) && o.sk !== 0n);
  }
  // One more block inside epoch 2 so that the current notes differ from the epoch's.
  const t = tr(c.state, [wallet.shift()!], [{ value: 7_000_000n, pk: payee.publicKey }]);
  c.apply([t.tx], 430n);
  wallet.push(...t.outputs.filter((o) => o.sk !== 0n));
  return { c, wallet };
}

/** Applies the same block on both states (a copy of the chain restarted from `restored`). */
function restartedChain(orig: TestChain, restored: LedgerState): TestChain {
  const c = new TestChain();
  c.state = restored;
  c.tip = orig.tip;
  return c;
}

describe('ledger state snapshot', () => {
  const built = buildChain();

  test('genesis state round-trips, with all three note maps and trees shared', () => {
    const g = new TestChain().state;
    assert.ok(g.notes === g.epoch_state.notes && g.notes === g.next_epoch_state.notes);
    const r = roundTrip(g);
    assert.equal(fingerprint(r), fingerprint(g));
    assert.ok(r.notes === r.epoch_state.notes && r.notes === r.next_epoch_state.notes);
    assert.ok(r.utxos === r.epoch_state.utxos && r.utxos === r.next_epoch_state.utxos);
  });

  test('every field is equal after encode/decode of a chain with channels, SDP, transfers and epochs', () => {
    const s = built.c.state;
    assert.ok(s.epoch_state.epoch >= 2);
    assert.notEqual(s.notes, s.epoch_state.notes);
    const r = roundTrip(s);
    assert.equal(fingerprint(r), fingerprint(s));
    // Encoding is deterministic and the restored state encodes to the same bytes.
    assert.deepEqual(encodeLedgerState(r), encodeLedgerState(s));
    // A deposited note and the locked service note keep their holders.
    const inChannel = [...r.notes.values()].filter((n) => n.channel !== null);
    const locked = [...r.notes.values()].filter((n) => n.locked_by !== null);
    assert.equal(inChannel.length, 1);
    assert.equal(inChannel[0]!.channel, bytesToHex(CH));
    assert.equal(locked.length, 1);
  });

  test('intermediate states of the chain round-trip', () => {
    const c = new TestChain();
    const g = genesisNotes(c.genesis);
    const states: LedgerState[] = [c.state];
    let w = g;
    for (const slot of [5n, 199n, 200n, 201n, 400n, 650n]) {
      const t = tr(c.state, [w[0]!], [{ value: 1n, pk: payee.publicKey }]);
      c.apply([t.tx], slot);
      w = [...w.slice(1), t.outputs[1]!];
      states.push(c.state);
    }
    for (const s of states) assert.equal(fingerprint(roundTrip(s)), fingerprint(s));
  });

  test('the restored state applies the next blocks exactly like the original', () => {
    const orig = new TestChain();
    orig.state = built.c.state;
    orig.tip = built.c.tip;
    const copy = restartedChain(orig, roundTrip(built.c.state));
    let wallet = built.wallet.slice();
    // Blocks that spend (empty positions) and create (refill the smallest ones), then cross into epoch 3 and 4.
    for (const slot of [431n, 432n, 600n, 601n, 810n]) {
      const a = tr(
        orig.state,
        [wallet.shift()!, wallet.shift()!],
        [
          { value: 1_000n, pk: payee.publicKey },
          { value: 2_000n, pk: KEYS[3]!.publicKey },
        ],
      );
      const b = tr(orig.state, [wallet.shift()!], [{ value: 3_000n, pk: payee.publicKey }]);
      const r1 = orig.apply([a.tx, b.tx], slot);
      const r2 = copy.apply([a.tx, b.tx], slot);
      assert.equal(bytesToHex(r2.id), bytesToHex(r1.id));
      assert.equal(fingerprint(copy.state), fingerprint(orig.state));
      // Positions of the created notes are the same (smallest empty position first).
      for (const o of [...a.outputs, ...b.outputs]) {
        assert.equal(copy.state.notes.get(o.id)?.index, orig.state.notes.get(o.id)?.index);
      }
      wallet = [...wallet, ...a.outputs, ...b.outputs].filter((o) => o.sk !== 0n);
    }
    assert.ok(orig.state.epoch_state.epoch >= 4);
  });

  test('the Blend rewards state with a target epoch and accepted proofs round-trips', () => {
    const s0 = built.c.state;
    const pid = (b: number) => new Uint8Array(32).fill(b);
    const s: LedgerState = {
      ...s0,
      sdp: {
        ...s0.sdp,
        rewards: {
          current_epoch: s0.sdp.rewards.current_epoch,
          current_nonce: 77n,
          current_poq: {
            pol_ledger_aged: 3n,
            lottery_0: 4n,
            lottery_1: FR_MODULUS - 2n,
            pow_blend_difficulty: 6n,
          },
          current_income: 1234n,
          target: {
            epoch: s0.sdp.rewards.current_epoch - 1,
            epoch_nonce: FR_MODULUS - 1n,
            poq: {
              core: { zk_root: 11n, quota: 12n },
              leader: {
                pol_ledger_aged: 13n,
                pol_epoch_nonce: FR_MODULUS - 1n,
                message_quota: 14n,
                lottery_0: 15n,
                lottery_1: 16n,
              },
              pow: { pow_blend_difficulty: 17n, pow_quota: (1n << 64n) - 1n },
            },
            providers: [
              { provider_id: pid(1), zk_id: 5n },
              { provider_id: pid(2), zk_id: 9n },
            ],
            token_count_byte_len: 3,
            activity_threshold: 14n,
            income: 1n << 70n,
            submitted: [{ provider_id: pid(2), zk_id: 9n, distance: 4n }],
          },
        },
      },
    };
    const r = roundTrip(s);
    assert.equal(fingerprint(r), fingerprint(s));
    assert.deepEqual(encodeLedgerState(r), encodeLedgerState(s));
  });

  test('shared note maps are encoded once and decode to one object', () => {
    const g = new TestChain().state;
    // The same state with three distinct (but equal) note maps: equal content decodes equal.
    const copyMap = (m: PMap<Fr, NoteRecord>) => m.set(1n, m.get(m.keys().next().value!)!).delete(1n);
    const distinct: LedgerState = {
      ...g,
      epoch_state: { ...g.epoch_state, notes: copyMap(g.notes) },
      next_epoch_state: { ...g.next_epoch_state, notes: copyMap(g.notes) },
    };
    assert.notEqual(distinct.notes, distinct.epoch_state.notes);
    const r = roundTrip(distinct);
    assert.equal(fingerprint(r), fingerprint(distinct));
    // 2000 notes: shared vs three different maps (differences are encoded compactly too).
    const c = new TestChain();
    const many: LedgerState = {
      ...c.state,
      ...withManyNotes(c.state, 2000),
    };
    const shared = encodeLedgerState(many).length;
    // Only the current notes/utxos hold the 2000 notes (the epoch states keep genesis' 20): one copy.
    const oneCopy = encodeLedgerState({ ...c.state, notes: many.notes, utxos: many.utxos }).length;
    assert.ok(shared < oneCopy * 1.05, `shared: ${shared} bytes, one copy: ${oneCopy}`);
    assert.ok(oneCopy > 2000 * 140, `one copy: ${oneCopy}`);
    const rm = roundTrip(many);
    assert.ok(rm.notes === rm.epoch_state.notes && rm.notes === rm.next_epoch_state.notes);
    assert.ok(rm.utxos === rm.epoch_state.utxos && rm.utxos === rm.next_epoch_state.utxos);
    assert.equal(fingerprint(rm), fingerprint(many));

    // A later state of the same map (a few changes) is encoded as a small difference.
    let notes = many.notes;
    let utxos = many.utxos;
    const keys = [...notes.keys()].slice(0, 10);
    for (const k of keys) {
      utxos = utxos.remove(notes.get(k)!.index);
      notes = notes.delete(k);
    }
    const ins = utxos.insert(123n);
    utxos = ins.tree;
    notes = notes.set(123n, { ...many.notes.get(keys[0]!)!, index: ins.index });
    const later: LedgerState = { ...many, notes, utxos };
    const laterBytes = encodeLedgerState(later).length;
    assert.ok(laterBytes < shared + 2000, `later: ${laterBytes} vs shared ${shared}`);
    const rl = roundTrip(later);
    assert.equal(fingerprint(rl), fingerprint(later));
    assert.equal(rl.epoch_state.notes, rl.next_epoch_state.notes);
    assert.notEqual(rl.notes, rl.epoch_state.notes);
  });

  test('occupied slots (blocks and uncles of the density period) round-trip; out-of-order slots are refused', () => {
    const base = built.c.state;
    const occupied = PMap.from<bigint, true>(bigintKeys, [
      [107n, true],
      [3n, true],
      [40n, true],
    ]);
    const s: LedgerState = { ...base, occupied_slots: occupied };
    const bytes = encodeLedgerState(s);
    const r = decodeLedgerState(bytes);
    assert.deepEqual(r.occupied_slots.sortedEntries(cmpBig), occupied.sortedEntries(cmpBig));
    assert.equal(fingerprint(r), fingerprint(s));
    // u8 version, u64 block number, u64 slot, two Fr: the count starts at byte 81, slots ascending.
    const at = 81;
    assert.equal(new DataView(bytes.buffer, bytes.byteOffset).getUint32(at, true), 3);
    const swapped = bytes.slice();
    swapped.set(bytes.subarray(at + 4 + 8, at + 4 + 16), at + 4);
    swapped.set(bytes.subarray(at + 4, at + 4 + 8), at + 4 + 8);
    assert.throws(
      () => decodeLedgerState(swapped),
      (e: unknown) => e instanceof DecodeError && /ascending/.test((e as Error).message),
    );
  });

  test('rejects bad versions, truncation and trailing bytes', () => {
    const bytes = encodeLedgerState(built.c.state);
    const isDecode = (e: unknown) => e instanceof DecodeError;
    for (const v of [0, 1, 2, 4, 255]) {
      const b = bytes.slice();
      b[0] = v;
      assert.throws(
        () => decodeLedgerState(b),
        (e: unknown) => isDecode(e) && /version/.test((e as Error).message),
      );
    }
    assert.throws(() => decodeLedgerState(new Uint8Array(0)), isDecode);
    for (const n of [1, 10, 100, 1000, bytes.length - 100, bytes.length - 1]) {
      assert.throws(() => decodeLedgerState(bytes.subarray(0, n)), isDecode, `truncated to ${n}`);
    }
    const longer = new Uint8Array(bytes.length + 1);
    longer.set(bytes);
    assert.throws(
      () => decodeLedgerState(longer),
      (e: unknown) => isDecode(e) && /trailing/.test((e as Error).message),
    );
    // A non-canonical field element (the state nonce set to p).
    const bad = bytes.slice();
    let p = FR_MODULUS;
    for (let i = 0; i < 32; i++) {
      bad[17 + i] = Number(p & 0xffn);
      p >>= 8n;
    }
    assert.throws(() => decodeLedgerState(bad), isDecode);
  });
});

/** `n` extra notes at fresh positions, in the current notes/utxos and (shared) both epoch states. */
function withManyNotes(s: LedgerState, n: number): Partial<LedgerState> {
  const ids: Fr[] = [];
  for (let i = 0; i < n; i++)
    ids.push(((BigInt(i) + 1n) * 0x2a4e3bd83bd4b1f1c1f0ab8f0f3c6d2e9a7b3c1dn) % FR_MODULUS);
  const idx: number[] = [];
  const utxos = s.utxos.withMutations((m) => {
    for (const id of ids) idx.push(m.insert(id));
  });
  const notes = s.notes.withMutations((m) => {
    ids.forEach((id, i) => {
      m.set(id, {
        note: { value: 1000n + BigInt(i), pk: KEYS[0]!.publicKey },
        index: idx[i]!,
        origin: BigInt(i + 1),
        output_index: i % 3,
        channel: i % 7 === 0 ? bytesToHex(CH) : null,
        locked_by: null,
      });
    });
  });
  return {
    notes,
    utxos,
    epoch_state: { ...s.epoch_state, notes, utxos },
    next_epoch_state: { ...s.next_epoch_state, notes, utxos },
  };
}

// ------------------------------------------------------------------ tree level

describe('UtxoTree snapshot/restore', () => {
  test('random inserts/removes, then restore: same root, leaves, and positions of the next 50 inserts', () => {
    for (const seed of [1, 2, 3]) {
      const rnd = xorshift32(seed);
      let t = UtxoTree.empty();
      const live: number[] = [];
      let id = 1n;
      for (let step = 0; step < 600; step++) {
        if (live.length > 0 && rnd() % 3 === 0) {
          const k = rnd() % live.length;
          t = t.remove(live[k]!);
          live.splice(k, 1);
        } else {
          const r = t.insert(id++ * 0x9e3779b97f4a7c15n);
          t = r.tree;
          live.push(r.index);
        }
      }
      const s = t.snapshot();
      // Holes below the highest live position: the next inserts must refill them, smallest first.
      const holes: number[] = [];
      const max = Math.max(...live);
      const liveSet = new Set(live);
      for (let i = 0; i < max; i++) if (!liveSet.has(i)) holes.push(i);
      assert.ok(holes.length > 0);
      const r = UtxoTree.restore(s);
      assert.equal(r.root(), t.root());
      assert.equal(r.size, t.size);
      assert.deepEqual(r.snapshot(), s);
      let a = t;
      let b = r;
      const placed: number[] = [];
      for (let i = 0; i < 50; i++) {
        const x = a.insert(id * 0x9e3779b97f4a7c15n);
        const y = b.insert(id++ * 0x9e3779b97f4a7c15n);
        assert.equal(y.index, x.index);
        placed.push(x.index);
        a = x.tree;
        b = y.tree;
      }
      const expected = [...holes];
      for (let i = max + 1; expected.length < 50; i++) expected.push(i);
      assert.deepEqual(placed, expected.slice(0, 50));
      assert.equal(b.root(), a.root());
      // Restoring from a base tree and a difference gives the same tree.
      const base = t.remove(live[0]!).insert(424242n).tree;
      const diff = t.snapshot(base);
      assert.ok(diff.leaves.length + (diff.removed?.length ?? 0) <= 2);
      const r2 = UtxoTree.restore(diff, base);
      assert.deepEqual(r2.snapshot(), s);
      assert.equal(r2.root(), t.root());
    }
  });

  test('restore rejects inconsistent snapshots; the empty positions follow from the leaves', () => {
    assert.throws(
      () =>
        UtxoTree.restore({
          leaves: [
            [1, 5n],
            [0, 6n],
          ],
        }),
      { code: 'MERKLE_TREE', message: /leaf index 0 is not strictly ascending/ },
    );
    assert.throws(
      () =>
        UtxoTree.restore({
          leaves: [
            [1, 5n],
            [1, 6n],
          ],
        }),
      { code: 'MERKLE_TREE', message: /leaf index 1 is not strictly ascending/ },
    );
    assert.equal(UtxoTree.restore({ leaves: [[0, 0n]] }).insert(9n).index, 1);
    assert.throws(() => UtxoTree.restore({ leaves: [[0, FR_MODULUS]] }), {
      code: 'FIELD_ERROR',
      message: /note id is not a canonical field element/,
    });
    // A difference may only empty positions that are live in its base, ascending.
    const base = UtxoTree.restore({
      leaves: [
        [0, 5n],
        [2, 6n],
      ],
    });
    assert.throws(() => UtxoTree.restore({ leaves: [], removed: [1] }, base), {
      code: 'MERKLE_TREE',
      message: /removed position 1 is not live/,
    });
    assert.throws(() => UtxoTree.restore({ leaves: [], removed: [2, 0] }, base), {
      code: 'MERKLE_TREE',
      message: /removed index 0 is not strictly ascending/,
    });
    assert.throws(() => UtxoTree.restore({ leaves: [], removed: [0] }), {
      code: 'MERKLE_TREE',
      message: /removed position 0 is not live in the base tree/,
    });
    const d = UtxoTree.restore({ leaves: [[1, 0n]], removed: [0, 2] }, base);
    assert.equal(d.size, 1);
    assert.equal(d.insert(9n).index, 0);
    assert.throws(() => UtxoTree.restore({ leaves: [[2 ** 32, 5n]] }), {
      code: 'MERKLE_TREE',
      message: /index 4294967296 is out of range/,
    });
    assert.equal(UtxoTree.restore({ leaves: [] }), UtxoTree.empty());
    assert.equal(UtxoTree.restore({ leaves: [[1, 5n]] }).insert(9n).index, 0);
    assert.equal(
      UtxoTree.restore({
        leaves: [
          [0, 5n],
          [1, 6n],
          [3, 7n],
        ],
      }).insert(9n).index,
      2,
    );
  });

  test('VoucherTree round-trips', () => {
    let v = VoucherTree.empty();
    for (let i = 0; i < 37; i++) {
      const r = VoucherTree.restore(v.snapshot());
      assert.equal(r.root(), v.root());
      assert.equal(r.count, v.count);
      assert.equal(r.append(99n).root(), v.append(99n).root());
      v = v.append(BigInt(i + 1));
    }
    assert.throws(() => VoucherTree.restore({ count: 2, frontier: new Array(33).fill(1n) }), {
      code: 'MERKLE_TREE',
      message: /frontier entry 0 is set but bit 0 of the count is not/,
    });
  });
});
