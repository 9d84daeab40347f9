/**
 * A tiny benchmark harness. Each figure prints one line `bench <name> <value> <unit>`.
 * Figures may depend on others (a ratio reads two rates): `ctx.value(name)` measures a figure once
 * and caches it, whether or not that figure itself was selected for printing.
 */
export interface Figure {
  readonly name: string;
  readonly unit: string;
  measure(ctx: BenchContext): number | Promise<number>;
}

export interface BenchContext {
  value(name: string): Promise<number>;
}

export interface RateOptions {
  /** Minimum measuring time per round, in milliseconds. */
  readonly minMs?: number;
  /** Number of measured rounds; the median is reported. */
  readonly rounds?: number;
  /** Warm-up time in milliseconds before measuring. */
  readonly warmupMs?: number;
}

/** Operations per second of `fn`, median over several rounds after a warm-up. `fn` runs `batch` ops per call. */
export function rate(fn: () => void, batch = 1, opts: RateOptions = {}): number {
  const minMs = opts.minMs ?? 400;
  const rounds = opts.rounds ?? 5;
  const warmupMs = opts.warmupMs ?? 200;
  const warmEnd = performance.now() + warmupMs;
  while (performance.now() < warmEnd) fn();
  const results: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let calls = 0;
    const start = performance.now();
    let now = start;
    while (now - start < minMs) {
      fn();
      calls++;
      now = performance.now();
    }
    results.push((calls * batch * 1000) / (now - start));
  }
  return median(results);
}

/** Median duration in milliseconds of one call of `fn`. */
export function durationMs(fn: () => void, opts: RateOptions = {}): number {
  return 1 / (rate(fn, 1, opts) / 1000);
}

/** Median duration in milliseconds of `runs` awaited calls of `fn`, one after the other. */
export async function medianCallMs(fn: () => Promise<unknown>, runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return median(times);
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function formatValue(v: number): string {
  if (Number.isInteger(v) || Math.abs(v) >= 100) return String(Math.round(v));
  if (Math.abs(v) >= 1) return v.toFixed(2);
  return v.toPrecision(3);
}

export async function runFigures(all: readonly Figure[], prefixes: readonly string[]): Promise<number> {
  const byName = new Map(all.map((f) => [f.name, f] as const));
  const cache = new Map<string, Promise<number>>();
  const ctx: BenchContext = {
    value(name: string): Promise<number> {
      let p = cache.get(name);
      if (!p) {
        const fig = byName.get(name);
        if (!fig) throw new Error(`unknown benchmark figure ${name}`);
        p = Promise.resolve().then(() => fig.measure(ctx));
        cache.set(name, p);
      }
      return p;
    },
  };
  const selected = all.filter((f) => prefixes.length === 0 || prefixes.some((p) => f.name.startsWith(p)));
  for (const fig of selected) {
    const v = await ctx.value(fig.name);
    console.log(`bench ${fig.name} ${formatValue(v)} ${fig.unit}`);
  }
  return selected.length;
}
