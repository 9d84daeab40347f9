/**
 * PCG32 (`rand_pcg::Lcg64Xsh32`), the generator `rand` 0.8's own value-stability tests draw from
 * (`crate::test::rng(seed)` = `Pcg32::new(seed, 11634580027462260723)`); `next_u64` is two `next_u32`,
 * low word first. A seeded, copyable generator for the scheduling tests.
 */
import type { CloneableRng } from '../../../src/blend/scheduling/rng.ts';

const MASK = (1n << 64n) - 1n;
const MULTIPLIER = 6364136223846793005n;
const RAND_TEST_STREAM = 11634580027462260723n;

export class Pcg32 implements CloneableRng {
  private constructor(
    private state: bigint,
    private readonly increment: bigint,
  ) {}

  /** `Pcg32::new(state, stream)`. */
  static create(state: bigint, stream: bigint): Pcg32 {
    const increment = ((stream << 1n) | 1n) & MASK;
    const rng = new Pcg32((state + increment) & MASK, increment);
    rng.step();
    return rng;
  }

  /** `rand`'s `crate::test::rng(seed)`. */
  static randTest(seed: bigint): Pcg32 {
    return Pcg32.create(seed, RAND_TEST_STREAM);
  }

  private step(): void {
    this.state = (this.state * MULTIPLIER + this.increment) & MASK;
  }

  nextU32(): number {
    const s = this.state;
    this.step();
    const rot = Number(s >> 59n);
    const xsh = Number((((s >> 18n) ^ s) >> 27n) & 0xffff_ffffn);
    return ((xsh >>> rot) | (xsh << (32 - rot))) >>> 0;
  }

  nextU64(): bigint {
    const lo = BigInt(this.nextU32());
    const hi = BigInt(this.nextU32());
    return (hi << 32n) | lo;
  }

  clone(): Pcg32 {
    return new Pcg32(this.state, this.increment);
  }
}

/** A generator that returns the given words, then fails (to check what a draw consumes). */
export class ScriptedRng implements CloneableRng {
  constructor(
    private readonly u64s: bigint[] = [],
    private readonly u32s: number[] = [],
  ) {}

  nextU32(): number {
    const w = this.u32s.shift();
    if (w === undefined) throw new Error('no scripted u32 left');
    return w;
  }

  nextU64(): bigint {
    const w = this.u64s.shift();
    if (w === undefined) throw new Error('no scripted u64 left');
    return w;
  }

  get leftU64(): number {
    return this.u64s.length;
  }

  get leftU32(): number {
    return this.u32s.length;
  }

  clone(): ScriptedRng {
    return new ScriptedRng([...this.u64s], [...this.u32s]);
  }
}
