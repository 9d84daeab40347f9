import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  computeLotteryConstants,
  DEFAULT_PRECISION_BITS,
  EPOCH_NONCE_V1,
  entropyContribution,
  epochLottery,
  isWinningTicket,
  LEAD_V1,
  LotteryError,
  leaderThreshold,
  leaderTicket,
  lotteryConstants,
  NONCE_CONTRIB_V1,
  negLnOneMinusF,
  nextEpochNonce,
} from '../../../src/consensus/lottery.ts';
import { FR_MODULUS, type Fr, frFromAscii } from '../../../src/crypto/field.ts';
import { digestBigint } from '../../../src/crypto/poseidon2/reference.ts';

const P = FR_MODULUS;
const F_VALUES = [
  { num: 1n, den: 30n },
  { num: 1n, den: 2n },
  { num: 1n, den: 10n },
  { num: 1n, den: 20n },
];

/** splitmix64 over BigInt: reproducible pseudo-random values. */
function prng(seed: bigint): { u64(): bigint; fr(): Fr } {
  let s = seed & 0xffffffffffffffffn;
  const u64 = (): bigint => {
    s = (s + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
    return z ^ (z >> 31n);
  };
  const fr = (): Fr => {
    for (;;) {
      const x = ((u64() << 192n) | (u64() << 128n) | (u64() << 64n) | u64()) >> 2n; // 254 bits
      if (x < P) return x;
    }
  };
  return { u64, fr };
}

/** Float p-fraction of a field element. */
const frac = (x: bigint): number => Number((x << 64n) / P) / 2 ** 64;

test('domain constants', () => {
  assert.equal(LEAD_V1, 13887241025832268n);
  assert.equal(EPOCH_NONCE_V1, 1000681177364816279997158727307333n);
  // NONCE_CONTRIB_V1 = little-endian integer of the ASCII bytes (assumed convention, see lottery.ts).
  const le = BigInt(`0x${Buffer.from('NONCE_CONTRIB_V1', 'ascii').reverse().toString('hex')}`);
  assert.equal(NONCE_CONTRIB_V1, le);
  assert.equal(NONCE_CONTRIB_V1, frFromAscii('NONCE_CONTRIB_V1'));
  assert.equal(NONCE_CONTRIB_V1, 65580641403957881555985426713123114830n);
});

test('lottery constants: reference vectors for f = 1/30', () => {
  const c = lotteryConstants({ num: 1n, den: 30n });
  assert.equal(c.T0, 0x1a3fb997fd5838f2a1585ee090a95c88129ab25cc4d2e2d28f1a95f81d85465n);
  assert.equal(c.T1, 0x71e790b4199113a9a00298d823c5716ddac764a110a45fe3b770bbb3e8a57n);
});

test('lottery constants are memoized per f (in lowest terms)', () => {
  const a = lotteryConstants({ num: 1n, den: 30n });
  assert.equal(lotteryConstants({ num: 1n, den: 30n }), a);
  assert.equal(lotteryConstants({ num: 2n, den: 60n }), a);
  assert.ok(Object.isFrozen(a));
});

test('lottery constants: float sanity for every f used', () => {
  for (const f of F_VALUES) {
    const { T0, T1 } = lotteryConstants(f);
    const L = -Math.log1p(-Number(f.num) / Number(f.den));
    assert.ok(Math.abs(frac(T0) - L) < 1e-15, `T0 for ${f.num}/${f.den}`);
    assert.ok(Math.abs(frac(T1) - (L * L) / 2) < 1e-15, `T1 for ${f.num}/${f.den}`);
    assert.ok(T0 > 0n && T0 < P && T1 > 0n && T1 < P);
  }
});

test('lottery constants agree with an independent Mercator-series evaluation', () => {
  // −ln(1−f) = Σ_{n≥1} f^n / n, summed in 3000-bit fixed point; the error is far below 2^-2900 and the
  // floors are checked with a ±2^20-unit margin on both sides.
  const bits = 3000n;
  for (const f of F_VALUES) {
    let pw = (f.num << bits) / f.den;
    let sum = 0n;
    for (let n = 1n; pw !== 0n; n++) {
      sum += pw / n;
      pw = (pw * f.num) / f.den;
    }
    const margin = 1n << 20n;
    const lo = sum - margin;
    const hi = sum + margin;
    const { T0, T1 } = lotteryConstants(f);
    assert.equal((P * lo) >> bits, T0);
    assert.equal((P * hi) >> bits, T0);
    assert.equal((P * lo * lo) >> (2n * bits + 1n), T1);
    assert.equal((P * hi * hi) >> (2n * bits + 1n), T1);
  }
});

test('lottery constants are stable when the precision increases', () => {
  for (const f of F_VALUES) {
    const ref = lotteryConstants(f);
    let prev: { lo: bigint; hi: bigint; bits: number } | null = null;
    for (const bits of [520, 576, 768, DEFAULT_PRECISION_BITS, 1536, 2048, 4096, 8192]) {
      const { lo, hi } = negLnOneMinusF(f, bits);
      const s = BigInt(bits);
      assert.ok(lo < hi && hi - lo < 1n << 24n, `enclosure width at ${bits} bits`);
      // Both ends of the enclosure floor to the same T0, T1 at every precision.
      assert.equal((P * lo) >> s, ref.T0, `T0 lo at ${bits} bits`);
      assert.equal((P * hi) >> s, ref.T0, `T0 hi at ${bits} bits`);
      assert.equal((P * lo * lo) >> (2n * s + 1n), ref.T1, `T1 lo at ${bits} bits`);
      assert.equal((P * hi * hi) >> (2n * s + 1n), ref.T1, `T1 hi at ${bits} bits`);
      assert.deepEqual(computeLotteryConstants(f, bits), ref);
      // Enclosures at different precisions overlap (each contains the true value).
      if (prev) {
        const d = BigInt(bits - prev.bits);
        assert.ok(lo <= prev.hi << d && prev.lo << d <= hi, `enclosures overlap at ${bits} bits`);
      }
      prev = { lo, hi, bits };
    }
  }
});

test('too low a precision cannot decide the floors, and computeLotteryConstants escalates', () => {
  const f = { num: 1n, den: 30n };
  const { lo, hi } = negLnOneMinusF(f, 64);
  assert.notEqual((P * lo) >> 64n, (P * hi) >> 64n);
  assert.deepEqual(computeLotteryConstants(f, 64), lotteryConstants(f));
  assert.deepEqual(computeLotteryConstants(f, 1), lotteryConstants(f));
});

test('invalid slot coefficients are rejected', () => {
  for (const f of [
    { num: 0n, den: 1n },
    { num: 1n, den: 1n },
    { num: 3n, den: 2n },
    { num: -1n, den: 2n },
    { num: 1n, den: 0n },
    { num: 1n, den: -2n },
  ]) {
    assert.throws(() => lotteryConstants(f), LotteryError, `${f.num}/${f.den}`);
  }
  assert.throws(() => negLnOneMinusF({ num: 1n, den: 2n }, 0), LotteryError);
});

test('epochLottery: t0 = T0/S, t1 = p − T1/S², error on S < 1', () => {
  const T = lotteryConstants({ num: 1n, den: 30n });
  assert.throws(() => epochLottery(T, 0n), LotteryError);
  assert.throws(() => epochLottery(T, -5n), LotteryError);

  const one = epochLottery(T, 1n);
  assert.equal(one.t0, T.T0);
  assert.equal(one.t1, P - T.T1);

  const S = 1_000_000_000n;
  const e = epochLottery(T, S);
  assert.equal(e.t0, T.T0 / S);
  assert.ok(T.T1 / (S * S) > 0n);
  assert.equal(e.t1, P - T.T1 / (S * S));
  assert.equal((e.t1 + T.T1 / (S * S)) % P, 0n); // t1 is −(T1/S²) in Fr
});

test('epochLottery: t1 wraps to 0 when T1/S² = 0 (p − 0 = p ≡ 0)', () => {
  const T = lotteryConstants({ num: 1n, den: 30n });
  // T1 < 2^244 here, so S = 2^122 makes T1/S² = 0.
  const S = 1n << 122n;
  assert.equal(T.T1 / (S * S), 0n);
  const e = epochLottery(T, S);
  assert.equal(e.t1, 0n);
  assert.equal(epochLottery(T, 10n ** 60n).t1, 0n);
  // Around the wrap: S = isqrt(T1) gives T1/S² >= 1 (t1 = p − T1/S²), S + 1 gives T1/S² = 0 (t1 = 0).
  const sqrt = isqrt(T.T1);
  assert.equal(T.T1 / (sqrt * sqrt) >= 1n, true);
  assert.equal(epochLottery(T, sqrt).t1, P - T.T1 / (sqrt * sqrt));
  assert.equal(epochLottery(T, sqrt + 1n).t1, 0n);
});

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt((n.toString(2).length >> 1) + 1);
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

test('leaderThreshold: v·(t0 + t1·v) in Fr, value range checked', () => {
  const T = lotteryConstants({ num: 1n, den: 30n });
  const S = 123_456_789n;
  const t = epochLottery(T, S);
  assert.equal(leaderThreshold(0n, t), 0n);
  for (const v of [1n, 2n, 1000n, S]) {
    const want = (((v * t.t0 + v * v * t.t1) % P) + P) % P;
    assert.equal(leaderThreshold(v, t), want);
    // As an integer it equals v·t0 − v²·(T1/S²) while that is positive.
    assert.equal(leaderThreshold(v, t), v * t.t0 - v * v * (T.T1 / (S * S)));
  }
  assert.throws(() => leaderThreshold(-1n, t), {
    code: 'FIELD_ERROR',
    message: /not a canonical field element/,
  });
  assert.throws(() => leaderThreshold(P, t), {
    code: 'FIELD_ERROR',
    message: /not a canonical field element/,
  });
});

test('leaderThreshold is monotone in v for v up to the total stake', () => {
  for (const f of F_VALUES) {
    const T = lotteryConstants(f);
    for (const S of [1n, 7n, 1000n]) {
      const t = epochLottery(T, S);
      let prev = -1n;
      for (let v = 0n; v <= S; v++) {
        const th = leaderThreshold(v, t);
        assert.ok(th > prev, `f=${f.num}/${f.den} S=${S} v=${v}`);
        prev = th;
      }
    }
    const S = 10n ** 15n;
    const t = epochLottery(T, S);
    let prev = -1n;
    for (let v = 0n; v <= S; v = v * 3n + 1n) {
      const th = leaderThreshold(v, t);
      assert.ok(th > prev, `f=${f.num}/${f.den} S=${S} v=${v}`);
      prev = th;
    }
  }
});

test('leaderThreshold ≈ p·(1 − (1−f)^(v/S)) for v ≪ S', () => {
  for (const f of F_VALUES) {
    const fl = Number(f.num) / Number(f.den);
    const T = lotteryConstants(f);
    const S = 10n ** 12n;
    const t = epochLottery(T, S);
    for (const v of [1n, 10n, 12_345n, 10n ** 6n, 10n ** 8n, 10n ** 9n]) {
      const x = Number(v) / Number(S);
      const want = -Math.expm1(x * Math.log1p(-fl));
      const got = frac(leaderThreshold(v, t));
      const rel = Math.abs(got - want) / want;
      assert.ok(rel < 1e-3, `f=${fl} v/S=${x}: got ${got}, want ${want}`);
    }
  }
});

test('statistics: a note holding all the stake wins about a fraction f of random tickets', () => {
  const rnd = prng(0x10773e1n);
  const n = 2000;
  for (const f of [
    { num: 1n, den: 2n },
    { num: 1n, den: 10n },
  ]) {
    const fl = Number(f.num) / Number(f.den);
    const S = 1_000_000n;
    const th = leaderThreshold(S, epochLottery(lotteryConstants(f), S));
    const q = frac(th);
    // The threshold is the second-order expansion of 1 − (1−f): L − L²/2 with L = −ln(1−f).
    const L = -Math.log1p(-fl);
    assert.ok(Math.abs(q - (L - (L * L) / 2)) < 1e-9);
    assert.ok(Math.abs(q - fl) < 0.06); // 0.4529 for f = 1/2, 0.0998 for f = 1/10
    let wins = 0;
    for (let i = 0; i < n; i++) if (isWinningTicket(rnd.fr(), th)) wins++;
    const sd = Math.sqrt(n * q * (1 - q));
    assert.ok(Math.abs(wins - n * q) < 4 * sd, `f=${fl}: ${wins} wins of ${n}, expected ${n * q}`);
  }
});

test('statistics: real leader tickets over 2,000 slots win at the threshold rate (f = 1/2)', () => {
  const rnd = prng(42n);
  const nonce = rnd.fr();
  const noteId = rnd.fr();
  const sk = rnd.fr();
  const S = 5000n;
  const th = leaderThreshold(S, epochLottery(lotteryConstants({ num: 1n, den: 2n }), S));
  const q = frac(th);
  const n = 2000;
  let wins = 0;
  for (let slot = 0n; slot < BigInt(n); slot++) {
    if (isWinningTicket(leaderTicket(nonce, slot, noteId, sk), th)) wins++;
  }
  const sd = Math.sqrt(n * q * (1 - q));
  assert.ok(Math.abs(wins - n * q) < 4 * sd, `${wins} wins of ${n}, expected ${n * q}`);
});

test('isWinningTicket is a strict integer comparison', () => {
  assert.equal(isWinningTicket(5n, 6n), true);
  assert.equal(isWinningTicket(6n, 6n), false);
  assert.equal(isWinningTicket(7n, 6n), false);
  assert.equal(isWinningTicket(0n, 0n), false);
  assert.equal(isWinningTicket(P - 2n, P - 1n), true);
});

test('ticket, entropy contribution and nonce update hash the documented inputs', () => {
  const rnd = prng(7n);
  for (let i = 0; i < 5; i++) {
    const nonce = rnd.fr();
    const noteId = rnd.fr();
    const sk = rnd.fr();
    const slot = rnd.u64();
    assert.equal(leaderTicket(nonce, slot, noteId, sk), digestBigint([LEAD_V1, nonce, slot, noteId, sk]));
    const ent = entropyContribution(slot, noteId, sk);
    assert.equal(ent, digestBigint([NONCE_CONTRIB_V1, slot, noteId, sk]));
    assert.equal(nextEpochNonce(nonce, ent, slot), digestBigint([EPOCH_NONCE_V1, nonce, ent, slot]));
  }
  // Input order matters.
  assert.notEqual(leaderTicket(1n, 2n, 3n, 4n), leaderTicket(1n, 2n, 4n, 3n));
  assert.notEqual(nextEpochNonce(1n, 2n, 3n), nextEpochNonce(2n, 1n, 3n));
  assert.throws(() => leaderTicket(0n, -1n, 0n, 0n), {
    code: 'FIELD_ERROR',
    message: /not a canonical field element/,
  });
  assert.throws(() => entropyContribution(-1n, 0n, 0n), {
    code: 'FIELD_ERROR',
    message: /not a canonical field element/,
  });
  assert.throws(() => nextEpochNonce(0n, 0n, P), {
    code: 'FIELD_ERROR',
    message: /not a canonical field element/,
  });
});
