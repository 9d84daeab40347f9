/**
 * The circom circuits of zk/circuits (ZkSig, PoC, PoL and their Poseidon2 / Merkle / comparison parts)
 * against the node's TypeScript: witnesses are computed with snarkjs from the compiled wasm, valid ones
 * are checked against the R1CS, invalid ones must make the witness calculator's assertions fail.
 *
 * The compiled circuits are read from zk/build/<name> when their `sources.sha256` matches the current
 * sources (scripts/zk-compile.sh writes it); otherwise they are compiled here with circom2 (about 25-30 s
 * on two cores for all of them, in parallel).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { renderPoseidon2Constants } from '../../../scripts/gen-poseidon2-circom.ts';
import {
  entropyContribution,
  epochLottery,
  LEAD_V1,
  leaderThreshold,
  leaderTicket,
  lotteryConstants,
  NONCE_CONTRIB_V1,
} from '../../../src/consensus/lottery.ts';
import { FR_MODULUS, type Fr, frFromAscii, frFromBytesModOrder } from '../../../src/crypto/field.ts';
import { compress, digest, merkleRoot, permute } from '../../../src/crypto/poseidon2/index.ts';
import { compressBigint, digestBigint, permuteBigint } from '../../../src/crypto/poseidon2/reference.ts';
import { KDF, zkPublicKey } from '../../../src/crypto/zk-keys.ts';
import { UtxoTree } from '../../../src/ledger/trees/utxo-tree.ts';
import { VoucherTree, voucherPath } from '../../../src/ledger/trees/voucher-tree.ts';
import { NOTE_ID_V1, noteId } from '../../../src/mantle/note.ts';

const P = FR_MODULUS;
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BUILD = join(ROOT, 'zk', 'build');
const CIRCUITS_DIR = join(ROOT, 'zk', 'circuits');

// ---------------------------------------------------------------------------------------------------
// snarkjs (untyped JavaScript): the subset used here, imported through a non-literal specifier so the
// test does not depend on any ambient declaration of the module.

type MemFile = { type: 'mem'; data?: Uint8Array };
interface R1csInfo {
  nConstraints: number;
  nVars: number;
  nPubInputs: number;
  nPrvInputs: number;
  nOutputs: number;
  constraints: [Record<string, bigint>, Record<string, bigint>, Record<string, bigint>][];
}
interface Logger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
  debug(msg: string): void;
}
interface Snarkjs {
  wtns: {
    calculate(input: Record<string, unknown>, wasm: Uint8Array, out: MemFile): Promise<void>;
    exportJson(wtns: MemFile): Promise<bigint[]>;
    check(r1cs: string, wtns: MemFile, logger: Logger): Promise<boolean>;
  };
  r1cs: { info(r1cs: string, logger?: Logger): Promise<R1csInfo> };
  curves: {
    getCurveFromName(name: string, options: { singleThread: boolean }): Promise<unknown>;
    getCurveFromR(r: bigint): Promise<unknown>;
  };
}
const SNARKJS: string = 'snarkjs';
const snarkjs = (await import(SNARKJS)) as Snarkjs;
const quiet: Logger = { info() {}, warn() {}, error() {}, debug() {} };

// snarkjs builds the BN254 curve (used by r1cs.info and wtns.check) with worker threads by default. Under
// the test runner's `--import tsx --import ./src/polyfills.ts` those workers die at start-up (the .ts
// import runs before tsx's hooks are active in the worker) and ffjavascript then waits for them forever.
// ffjavascript returns the curve cached in globalThis.curve_bn128 when there is one, so give it a
// single-threaded curve (nothing to terminate, no threads left behind).
const singleThreadCurve = await snarkjs.curves.getCurveFromName('bn128', { singleThread: true });
(globalThis as { curve_bn128?: unknown }).curve_bn128 = singleThreadCurve;
assert.equal(await snarkjs.curves.getCurveFromR(FR_MODULUS), singleThreadCurve);

// ---------------------------------------------------------------------------------------------------
// Compilation (only when zk/build is missing or stale).

/** The circuits used here: main circuits in zk/circuits, test-only ones in zk/circuits/test. */
const SOURCES = {
  zksig: 'zk/circuits/zksig.circom',
  poc: 'zk/circuits/poc.circom',
  pol: 'zk/circuits/pol.circom',
  poseidon2_test: 'zk/circuits/test/poseidon2_test.circom',
  comparators_test: 'zk/circuits/test/comparators_test.circom',
} as const;
type Circuit = keyof typeof SOURCES;

/** Constraint targets (reference/crypto.md §6.2a); the test requires ±10%. */
const TARGETS: Partial<Record<Circuit, number>> = { zksig: 7681, poc: 8257, pol: 20460 };

function listCircom(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...listCircom(p));
    else if (e.isFile() && e.name.endsWith('.circom')) out.push(p);
  }
  return out;
}

/**
 * Hash of all circuit sources, the same value as scripts/zk-compile.sh computes with
 * `find zk/circuits -name '*.circom' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum`.
 */
function sourcesStamp(): string {
  const files = listCircom(CIRCUITS_DIR)
    .map((p) => relative(ROOT, p).split('\\').join('/'))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const lines = files
    .map(
      (f) =>
        `${createHash('sha256')
          .update(readFileSync(join(ROOT, f)))
          .digest('hex')}  ${f}\n`,
    )
    .join('');
  return createHash('sha256').update(lines).digest('hex');
}

const r1csPath = (name: Circuit): string => join(BUILD, name, `${name}.r1cs`);
const wasmPath = (name: Circuit): string => join(BUILD, name, `${name}_js`, `${name}.wasm`);

function isFresh(name: Circuit, stamp: string): boolean {
  const stampFile = join(BUILD, name, 'sources.sha256');
  return (
    existsSync(r1csPath(name)) &&
    existsSync(wasmPath(name)) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, 'utf8').trim() === stamp
  );
}

const execFileP = promisify(execFile);

/** Compiles one circuit into a temporary directory that then replaces zk/build/<name>. */
async function compile(name: Circuit, stamp: string): Promise<number> {
  const t0 = performance.now();
  const tmp = join(BUILD, `.tmp-${name}-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    await execFileP(
      process.execPath,
      [
        fileURLToPath(import.meta.resolve('circom2/cli.js')),
        SOURCES[name],
        '--r1cs',
        '--wasm',
        '--O2',
        '-o',
        relative(ROOT, tmp),
      ],
      { cwd: ROOT, timeout: 150_000, maxBuffer: 16 << 20 },
    );
    writeFileSync(join(tmp, 'sources.sha256'), `${stamp}\n`);
    rmSync(join(BUILD, name), { recursive: true, force: true });
    renameSync(tmp, join(BUILD, name));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return performance.now() - t0;
}

const wasmCache = new Map<Circuit, Uint8Array>();
function wasm(name: Circuit): Uint8Array {
  let w = wasmCache.get(name);
  if (!w) {
    w = new Uint8Array(readFileSync(wasmPath(name)));
    wasmCache.set(name, w);
  }
  return w;
}

type Input = Record<string, bigint | number | readonly (bigint | number)[]>;

/** The full witness (index 0 is the constant 1, then outputs, then public inputs in order). */
async function witnessFile(name: Circuit, input: Input): Promise<MemFile> {
  const out: MemFile = { type: 'mem' };
  await snarkjs.wtns.calculate(input as Record<string, unknown>, wasm(name), out);
  return out;
}
async function witness(name: Circuit, input: Input): Promise<bigint[]> {
  return snarkjs.wtns.exportJson(await witnessFile(name, input));
}

/** Computes a witness, checks it satisfies the compiled R1CS, returns it. */
async function validWitness(name: Circuit, input: Input): Promise<bigint[]> {
  const file = await witnessFile(name, input);
  assert.equal(await snarkjs.wtns.check(r1csPath(name), file, quiet), true, `${name}: R1CS not satisfied`);
  return snarkjs.wtns.exportJson(file);
}

/**
 * Witness calculation must fail on an assertion (a constraint that cannot hold). The witness calculator
 * also prints the failing template and line on the console; that output is muted here.
 */
async function rejects(name: Circuit, input: Input, what: string): Promise<void> {
  const { log, error } = console;
  console.log = () => {};
  console.error = () => {};
  try {
    await assert.rejects(
      witness(name, input),
      /Assert Failed/,
      `${name}: expected a failed assertion (${what})`,
    );
  } finally {
    console.log = log;
    console.error = error;
  }
}

// ---------------------------------------------------------------------------------------------------
// Deterministic test values.

function hashFr(label: string): Fr {
  return frFromBytesModOrder(createHash('sha256').update(label).digest());
}
function hashBytes(label: string, n = 32): Uint8Array {
  return new Uint8Array(createHash('sha256').update(label).digest().subarray(0, n));
}
function bitsOf(x: bigint, n: number): number[] {
  return Array.from({ length: n }, (_, i) => Number((x >> BigInt(i)) & 1n));
}
function leFr(bytes: Uint8Array): Fr {
  let v = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i]!);
  return v;
}

// ---------------------------------------------------------------------------------------------------

const timings: string[] = [];

before(
  async () => {
    mkdirSync(BUILD, { recursive: true });
    const stamp = sourcesStamp();
    const stale = (Object.keys(SOURCES) as Circuit[]).filter((n) => !isFresh(n, stamp));
    if (stale.length === 0) {
      timings.push('circuits: zk/build is up to date, nothing compiled');
      return;
    }
    const t0 = performance.now();
    const times = await Promise.all(stale.map(async (n) => [n, await compile(n, stamp)] as const));
    for (const [n, ms] of times) timings.push(`compiled ${n} in ${(ms / 1000).toFixed(1)} s`);
    timings.push(`compilation wall time ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  },
  { timeout: 240_000 },
);

after(() => {
  for (const line of timings) console.log(`zk: ${line}`);
});

test('zk/circuits/poseidon2_constants.circom equals a fresh generation from the TypeScript constants', () => {
  const committed = readFileSync(join(CIRCUITS_DIR, 'poseidon2_constants.circom'), 'utf8');
  assert.equal(
    committed,
    renderPoseidon2Constants(),
    'run: node --import tsx scripts/gen-poseidon2-circom.ts',
  );
});

describe('Poseidon2 circuit vs TypeScript', () => {
  // Outputs of zk/circuits/test/poseidon2_test.circom, in declaration order after the constant 1.
  type P2Input = { perm: Fr[]; comp: Fr[]; d1: Fr[]; d2: Fr[]; d5: Fr[] };
  async function run(i: P2Input): Promise<{ perm: Fr[]; comp: Fr; d1: Fr; d2: Fr; d5: Fr }> {
    const w = await witness('poseidon2_test', {
      perm_in: i.perm,
      compress_in: i.comp,
      digest1_in: i.d1,
      digest2_in: i.d2,
      digest5_in: i.d5,
    });
    return { perm: [w[1]!, w[2]!, w[3]!], comp: w[4]!, d1: w[5]!, d2: w[6]!, d5: w[7]! };
  }
  function expectMatchesTs(i: P2Input, o: Awaited<ReturnType<typeof run>>): void {
    const s = i.perm as [Fr, Fr, Fr];
    assert.deepEqual(o.perm, permuteBigint(s));
    assert.deepEqual(o.perm, permute(s));
    assert.equal(o.comp, compressBigint(i.comp[0]!, i.comp[1]!));
    assert.equal(o.comp, compress(i.comp[0]!, i.comp[1]!));
    assert.equal(o.d1, digestBigint(i.d1));
    assert.equal(o.d2, digestBigint(i.d2));
    assert.equal(o.d5, digestBigint(i.d5));
    assert.equal(o.d5, digest(i.d5));
  }

  test('reference/crypto.md §4.4 vectors', async () => {
    const a = await run({
      perm: [0n, 1n, 2n],
      comp: [0n, 0n],
      d1: [0n],
      d2: [0n, 0n],
      d5: [NOTE_ID_V1, 0n, 0n, 100n, 456n],
    });
    assert.deepEqual(a.perm, [
      0x0bb61d24daca55eebcb1929a82650f328134334da98ea4f847f760054f4a3033n,
      0x303b6f7c86d043bfcbcc80214f26a30277a15d3f74ca654992defe7ff8d03570n,
      0x1ed25194542b12eef8617361c3ba7c52e660b145994427cc86296242cf766ec8n,
    ]);
    assert.equal(a.comp, 21177166670744647784289648293577786481357446166129397094207318338605633126018n);
    assert.equal(a.d1, 14440562208246903332530876912784724937356723424375796042690034647976142142243n);
    assert.equal(a.d2, 14628790903668924121747280216643356178740756932733894594323650293252618457042n);
    assert.equal(a.d5, 7557997998773395727489806263315711564569794358720487479582958381680367418066n);

    const b = await run({
      perm: [1n, 2n, 3n],
      comp: [1n, 0n],
      d1: [1n],
      d2: [1n, 2n],
      d5: [1n, 2n, 3n, 4n, 5n],
    });
    assert.equal(b.comp, 2820430044171165092709918704747590965614342875549110429217681435604321658469n);
    assert.equal(b.d1, 13955187255749411516377601857453481686854514827536340092448578824571923228920n);
    assert.equal(b.d2, 14118544982895877636855211757199904519359053761360294109973292038354361461611n);
    expectMatchesTs(
      { perm: [1n, 2n, 3n], comp: [1n, 0n], d1: [1n], d2: [1n, 2n], d5: [1n, 2n, 3n, 4n, 5n] },
      b,
    );

    const c = await run({
      perm: [0n, 0n, 0n],
      comp: [0n, 1n],
      d1: [2n],
      d2: [0n, 1n],
      d5: [0n, 0n, 0n, 0n, 0n],
    });
    assert.equal(c.comp, 15449469107951025862283679587511638593643295575495923463032662929748907033596n);
  });

  test('random and edge inputs', async () => {
    const cases: P2Input[] = [
      {
        perm: [P - 1n, P - 1n, P - 1n],
        comp: [P - 1n, P - 1n],
        d1: [P - 1n],
        d2: [P - 1n, 0n],
        d5: [0n, 0n, 0n, 0n, P - 1n],
      },
    ];
    for (let k = 0; k < 8; k++) {
      const r = (j: number): Fr => hashFr(`p2:${k}:${j}`);
      cases.push({
        perm: [r(0), r(1), r(2)],
        comp: [r(3), r(4)],
        d1: [r(5)],
        d2: [r(6), r(7)],
        d5: [r(8), r(9), r(10), r(11), r(12)],
      });
    }
    for (const i of cases) expectMatchesTs(i, await run(i));
  });
});

describe('comparisons', () => {
  // zk/circuits/test/comparators_test.circom: bits[254] must encode a value <= p - 1 (asserted);
  // lt = (a < b) over the integers in [0, p) (FieldLessThan, the comparison of the PoL).
  const okBits = bitsOf(0n, 254);
  const lt = async (a: bigint, b: bigint): Promise<bigint> =>
    (await validWitness('comparators_test', { bits: okBits, a, b }))[1]!;

  test('FieldLessThan agrees with the integer order on edge and random pairs', async () => {
    const H = 1n << 127n;
    const pairs: [bigint, bigint][] = [
      [0n, 0n],
      [0n, 1n],
      [1n, 0n],
      [P - 2n, P - 1n],
      [P - 1n, P - 2n],
      [P - 1n, P - 1n],
      [0n, P - 1n],
      [P - 1n, 0n],
      [H - 1n, H], // low limb max vs high limb 1
      [H, H - 1n],
      [5n * H + 7n, 5n * H + 8n], // equal high limbs
      [5n * H + 8n, 5n * H + 7n],
      [5n * H + 7n, 5n * H + 7n],
      [5n * H + (H - 1n), 6n * H], // high limbs differ, low limbs the other way
      [6n * H, 5n * H + (H - 1n)],
      [P / 2n, P / 2n + 1n],
    ];
    for (let k = 0; k < 6; k++) {
      const a = hashFr(`lt:a:${k}`);
      pairs.push([a, hashFr(`lt:b:${k}`)], [a, a + 1n], [a + 1n, a]);
    }
    for (const [a, b] of pairs) {
      assert.equal(await lt(a, b), a < b ? 1n : 0n, `lt(${a}, ${b})`);
    }
  });

  test('strict decomposition: bit patterns encoding a value >= p are rejected', async () => {
    for (const v of [0n, 1n, P - 1n, P - 2n, (1n << 253n) - 1n, hashFr('alias:ok')]) {
      await validWitness('comparators_test', { bits: bitsOf(v, 254), a: 0n, b: 1n });
    }
    const max = (1n << 254n) - 1n;
    for (const v of [P, P + 1n, P + (1n << 28n), max, max - 1n, hashFr('alias:x') + P]) {
      if (v > max) continue;
      await rejects('comparators_test', { bits: bitsOf(v, 254), a: 0n, b: 1n }, `alias ${v}`);
    }
  });
});

describe('ZkSig', () => {
  const sks = [hashFr('zksig:sk0'), hashFr('zksig:sk1'), hashFr('zksig:sk2')];
  const msg = hashFr('zksig:msg');
  const padded = (keys: Fr[]): { sks: Fr[]; pks: Fr[] } => {
    const all = [...keys, ...new Array<Fr>(32 - keys.length).fill(0n)];
    return { sks: all, pks: all.map((sk) => zkPublicKey(sk)) };
  };

  test('a witness exists for matching keys (3 keys + 29 padding slots); public inputs are pks[32], msg', async () => {
    const { sks: s, pks } = padded(sks);
    assert.equal(pks[31], compress(KDF, 0n));
    const w = await validWitness('zksig', { pks, msg, sks: s });
    assert.deepEqual(w.slice(1, 34), [...pks, msg]);
  });

  test('witness calculation fails when a pk does not match its sk', async () => {
    const { sks: s, pks } = padded(sks);
    const wrong = [...pks];
    wrong[1] = zkPublicKey(hashFr('zksig:other'));
    await rejects('zksig', { pks: wrong, msg, sks: s }, 'pk of another key');
    const badPad = [...s];
    badPad[20] = 1n; // a padding slot whose sk is not 0 while its pk is pk(0)
    await rejects('zksig', { pks, msg, sks: badPad }, 'padding slot with sk 1');
  });
});

describe('PoC', () => {
  const REWARD_VOUCHER = frFromAscii('REWARD_VOUCHER');
  const VOUCHER_NF = frFromAscii('VOUCHER_NF');
  const secrets = Array.from({ length: 11 }, (_, i) => hashFr(`poc:secret:${i}`));
  const leaves = secrets.map((s) => compress(REWARD_VOUCHER, s));
  let tree = VoucherTree.empty();
  for (const leaf of leaves) tree = tree.append(leaf);
  const index = 6;
  const secret = secrets[index]!;
  const path = voucherPath(leaves, index);
  const root = tree.root();
  const tx = hashFr('poc:tx');
  const valid = (): Input => ({
    voucher_nullifier: compress(VOUCHER_NF, secret),
    voucher_root: root,
    mantle_tx_hash: tx,
    voucher_secret: secret,
    path,
    index_bits: bitsOf(BigInt(index), 32),
  });

  test('a witness exists for a voucher of the VoucherTree (public inputs nullifier, root, tx hash)', async () => {
    assert.equal(merkleRoot(leaves[index]!, path, BigInt(index)), root);
    const w = await validWitness('poc', valid());
    assert.deepEqual(w.slice(1, 4), [compress(VOUCHER_NF, secret), root, tx]);
  });

  test('fails for a wrong secret, root, nullifier, index or path', async () => {
    await rejects('poc', { ...valid(), voucher_secret: secrets[5]! }, 'secret of another voucher');
    await rejects('poc', { ...valid(), voucher_root: (root + 1n) % P }, 'wrong root');
    await rejects(
      'poc',
      { ...valid(), voucher_nullifier: compress(VOUCHER_NF, secrets[5]!) },
      'wrong nullifier',
    );
    await rejects('poc', { ...valid(), index_bits: bitsOf(BigInt(index ^ 1), 32) }, 'wrong index');
    const badPath = [...path];
    badPath[3] = (badPath[3]! + 1n) % P;
    await rejects('poc', { ...valid(), path: badPath }, 'wrong sibling');
    const nonBool = bitsOf(BigInt(index), 32);
    nonBool[0] = 2;
    await rejects('poc', { ...valid(), index_bits: nonBool }, 'non-boolean index bit');
  });

  test('index bits must be boolean even where the sibling equals the node (selection would not notice)', async () => {
    // The same commitment at leaves 0 and 1: at level 0 node = sibling, so left = node + b*(sibling - node)
    // is the node for any b, and only the booleanity constraint rejects b = 2.
    const twice = VoucherTree.empty().append(leaves[0]!).append(leaves[0]!);
    const input = (bit0: bigint): Input => ({
      voucher_nullifier: compress(VOUCHER_NF, secrets[0]!),
      voucher_root: twice.root(),
      mantle_tx_hash: tx,
      voucher_secret: secrets[0]!,
      path: voucherPath([leaves[0]!, leaves[0]!], 0),
      index_bits: [bit0, ...new Array<bigint>(31).fill(0n)],
    });
    await validWitness('poc', input(0n));
    await validWitness('poc', input(1n));
    await rejects('poc', input(2n), 'index bit 2');
    await rejects('poc', input(P - 1n), 'index bit -1');
  });
});

describe('PoL', () => {
  const sk = hashFr('pol:sk');
  const pk = zkPublicKey(sk);
  const totalStake = 1_000_000n;
  const value = 600_000n; // 60% of the stake: wins about a third of the slots at f = 1/2
  const lottery = epochLottery(lotteryConstants({ num: 1n, den: 2n }), totalStake);
  const epochNonce = hashFr('pol:nonce');
  const leaderKey = hashBytes('pol:leader-key');
  const leaderPk1 = leFr(leaderKey.subarray(0, 16));
  const leaderPk2 = leFr(leaderKey.subarray(16, 32));

  /** A UTXO tree of 37 notes of other owners with ours at `position`; returns ids and the op id. */
  function buildTrees(noteValue: bigint) {
    const opId = hashBytes(`pol:op:${noteValue}`);
    const outputIndex = 2;
    const ours = noteId(opId, outputIndex, { value: noteValue, pk });
    let aged = UtxoTree.empty();
    let position = -1;
    for (let i = 0; i < 37; i++) {
      if (i === 29) {
        const r = aged.insert(ours);
        aged = r.tree;
        position = r.index;
      } else {
        const other = noteId(hashBytes(`pol:other:${i}`), i % 3, {
          value: BigInt(1000 + i),
          pk: hashFr(`pk${i}`),
        });
        aged = aged.insert(other).tree;
      }
    }
    // The latest state: some notes spent, some created (a different root, our note still present).
    let latest = aged.remove(4).remove(30);
    for (let i = 0; i < 5; i++) latest = latest.insert(hashFr(`pol:new:${i}`)).tree;
    assert.equal(latest.leaf(position), ours);
    assert.notEqual(latest.root(), aged.root());
    return { opId, outputIndex, ours, aged, latest, position };
  }

  /** The first slot (from `from`) where the note wins (want = true) or loses (false). */
  function findSlot(id: Fr, noteValue: bigint, want: boolean, from = 1n): bigint {
    const threshold = leaderThreshold(noteValue, lottery);
    for (let slot = from; slot < from + 10_000n; slot++) {
      if (leaderTicket(epochNonce, slot, id, sk) < threshold === want) return slot;
    }
    throw new Error('no slot found');
  }

  function inputs(noteValue: bigint, slot: bigint, t: ReturnType<typeof buildTrees>): Input {
    return {
      entropy_contribution: entropyContribution(slot, t.ours, sk),
      slot,
      epoch_nonce: epochNonce,
      lottery_0: lottery.t0,
      lottery_1: lottery.t1,
      aged_root: t.aged.root(),
      latest_root: t.latest.root(),
      leader_pk1: leaderPk1,
      leader_pk2: leaderPk2,
      secret_key: sk,
      note_value: noteValue,
      note_tx_hash: frFromBytesModOrder(t.opId),
      note_output_index: t.outputIndex,
      aged_path: t.aged.path(t.position),
      aged_bits: bitsOf(BigInt(t.position), 32),
      latest_path: t.latest.path(t.position),
      latest_bits: bitsOf(BigInt(t.position), 32),
    };
  }

  const trees = buildTrees(value);
  const winSlot = findSlot(trees.ours, value, true);

  test('a witness exists for a winning note in the aged and latest UTXO trees', async () => {
    assert.equal(trees.position, 29);
    assert.ok(leaderTicket(epochNonce, winSlot, trees.ours, sk) < leaderThreshold(value, lottery));
    const input = inputs(value, winSlot, trees);
    const w = await validWitness('pol', input);
    assert.deepEqual(w.slice(1, 10), [
      input.entropy_contribution,
      winSlot,
      epochNonce,
      lottery.t0,
      lottery.t1,
      trees.aged.root(),
      trees.latest.root(),
      leaderPk1,
      leaderPk2,
    ]);
    // The circuit's constants are the node's.
    assert.equal(trees.ours, digest([NOTE_ID_V1, frFromBytesModOrder(trees.opId), 2n, value, pk]));
    assert.equal(
      entropyContribution(winSlot, trees.ours, sk),
      digest([NONCE_CONTRIB_V1, winSlot, trees.ours, sk]),
    );
    assert.equal(
      leaderTicket(epochNonce, winSlot, trees.ours, sk),
      digest([LEAD_V1, epochNonce, winSlot, trees.ours, sk]),
    );
  });

  test('fails when the ticket is not below the threshold', async () => {
    const loseSlot = findSlot(trees.ours, value, false);
    assert.ok(leaderTicket(epochNonce, loseSlot, trees.ours, sk) >= leaderThreshold(value, lottery));
    await rejects('pol', inputs(value, loseSlot, trees), 'losing ticket');
    // The same winning slot with a smaller lottery (a larger total stake) loses.
    const small = epochLottery(lotteryConstants({ num: 1n, den: 2n }), totalStake * 1_000_000n);
    assert.ok(leaderTicket(epochNonce, winSlot, trees.ours, sk) >= leaderThreshold(value, small));
    await rejects(
      'pol',
      { ...inputs(value, winSlot, trees), lottery_0: small.t0, lottery_1: small.t1 },
      'small lottery',
    );
  });

  test('fails when the entropy contribution, a root, a path or an index is wrong', async () => {
    const ok = inputs(value, winSlot, trees);
    const e = ok.entropy_contribution as bigint;
    await rejects('pol', { ...ok, entropy_contribution: (e + 1n) % P }, 'entropy + 1');
    await rejects(
      'pol',
      { ...ok, entropy_contribution: entropyContribution(winSlot + 1n, trees.ours, sk) },
      'entropy of another slot',
    );
    await rejects('pol', { ...ok, latest_root: trees.aged.root() }, 'latest root = aged root');
    const agedPath = [...(ok.aged_path as Fr[])];
    agedPath[7] = (agedPath[7]! + 1n) % P;
    await rejects('pol', { ...ok, aged_path: agedPath }, 'wrong aged sibling');
    await rejects('pol', { ...ok, latest_path: ok.aged_path as Fr[] }, 'aged path under the latest root');
    await rejects('pol', { ...ok, latest_bits: bitsOf(28n, 32) }, 'wrong latest index');
    await rejects('pol', { ...ok, secret_key: hashFr('pol:other-sk') }, 'another secret key');
    await rejects('pol', { ...ok, note_value: value + 1n }, 'another value');
  });

  test('fails for a note value of 2^64 or more even when its ticket wins', async () => {
    const big = (1n << 64n) + 5n;
    const t = buildTrees(big);
    const slot = findSlot(t.ours, big, true);
    await rejects('pol', inputs(big, slot, t), 'value >= 2^64');
  });
});

test('constraint counts, public inputs and R1CS shape', async () => {
  const lines: string[] = [];
  const infos = new Map<Circuit, R1csInfo>();
  for (const name of Object.keys(SOURCES) as Circuit[]) {
    const info = await snarkjs.r1cs.info(r1csPath(name));
    infos.set(name, info);
    let ab = 0;
    for (const [a, b] of info.constraints) ab += Object.keys(a).length + Object.keys(b).length;
    const perRow = ab / info.nConstraints;
    const target = TARGETS[name];
    lines.push(
      `${name.padEnd(16)} ${String(info.nConstraints).padStart(6)} constraints` +
        (target
          ? ` (target ${target}, ${(((info.nConstraints - target) / target) * 100).toFixed(2)}%)`
          : '') +
        `, ${info.nPubInputs} public inputs, ${info.nVars} wires, ${perRow.toFixed(2)} A+B terms/row`,
    );
  }
  for (const line of lines) console.log(`zk: ${line}`);

  const get = (n: Circuit): R1csInfo => infos.get(n)!;
  for (const [name, target] of Object.entries(TARGETS) as [Circuit, number][]) {
    const n = get(name).nConstraints;
    assert.ok(Math.abs(n - target) <= target * 0.1, `${name}: ${n} constraints, target ${target} ±10%`);
  }
  // 13 permutations (perm, compress, digests of 1, 2 and 5 inputs: 2, 3, 6 permutations): 240 each.
  assert.equal(get('poseidon2_test').nConstraints, 13 * 240);
  assert.equal(get('zksig').nConstraints, 32 * 240 + 1);
  assert.ok(get('pol').nConstraints < 1 << 15, 'PoL must fit the 2^15 powers of tau');
  assert.deepEqual([get('zksig').nPubInputs, get('poc').nPubInputs, get('pol').nPubInputs], [33, 3, 9]);
  // Sparse S-boxes: every S-box input is one signal, so the A and B rows have about one term each (a
  // Poseidon2 feeding the linear combinations into the products has 20+ A+B terms per row).
  // Every public input is bound: its wire (1..nPubInputs, these circuits have no outputs) occurs in some
  // constraint. A public input in no constraint has an identity IC point and could be changed freely.
  for (const name of ['zksig', 'poc', 'pol'] as const) {
    const info = get(name);
    const used = new Set<string>();
    for (const row of info.constraints) for (const lc of row) for (const k of Object.keys(lc)) used.add(k);
    for (let i = 1; i <= info.nPubInputs; i++)
      assert.ok(used.has(String(i)), `${name}: public input ${i} is unbound`);
  }
  for (const [name, info] of infos) {
    if (name === 'comparators_test') continue; // bit decompositions only, no Poseidon2
    let ab = 0;
    for (const [a, b] of info.constraints) ab += Object.keys(a).length + Object.keys(b).length;
    assert.ok(
      ab / info.nConstraints < 3,
      `${name}: dense R1CS (${(ab / info.nConstraints).toFixed(2)} A+B terms/row)`,
    );
  }
});
