/**
 * Version ordering and ranges for package selection (logos-package-downloader `docs/spec.md` "Version
 * range matching"): the npm/Cargo-flavoured subset the catalogs use: exact `1.2.3`, comparators
 * (`>=1.0.0`, `<2.0.0`, `>1.2`, `<=3.0`), caret `^1.2.3`, tilde `~1.2.3`, wildcards (`*`, `1.x`, `1.2.x`),
 * whitespace conjunction and `||` alternation; the empty range matches anything. Build metadata is
 * ignored; a pre-release sorts before its release and a range only admits pre-releases of the same
 * major.minor.patch as one it names.
 */

interface Ver {
  readonly nums: readonly [number, number, number];
  readonly pre: readonly string[];
}

const VER_RE = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

function parse(v: string): Ver | undefined {
  const m = VER_RE.exec(v.trim());
  if (!m) return undefined;
  return { nums: [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)], pre: m[4] ? m[4].split('.') : [] };
}

function cmpPre(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return b.length - a.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny && Number(x) !== Number(y)) return Number(x) - Number(y);
    if (nx !== ny) return nx ? -1 : 1;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function cmp(a: Ver, b: Ver): number {
  for (let i = 0; i < 3; i++) if (a.nums[i] !== b.nums[i]) return a.nums[i]! - b.nums[i]!;
  return cmpPre(a.pre, b.pre);
}

/** Compares two version strings by SemVer precedence; unparsable ones sort first, by text. */
export function compareVersions(a: string, b: string): number {
  const x = parse(a);
  const y = parse(b);
  if (x && y) return cmp(x, y);
  if (!x && !y) return a < b ? -1 : a > b ? 1 : 0;
  return x ? 1 : -1;
}

type Test = (v: Ver) => boolean;

/** One comparator (`>=1.2`, `^1.2.3`, `1.x`, …) as a test plus the versions it names. */
function comparator(c: string): { test: Test; named: Ver | undefined } {
  const m = /^(\^|~|>=|<=|>|<|=)?\s*(.*)$/.exec(c)!;
  const op = m[1] ?? '';
  const body = m[2]!;
  if (body === '*' || body === 'x' || body === 'X' || body === '')
    return { test: () => true, named: undefined };
  const parts = body.split('.');
  const wild = parts.findIndex((p) => p === 'x' || p === 'X' || p === '*');
  const given = wild >= 0 ? wild : Math.min(parts.length, 3);
  const v = parse(parts.slice(0, given).join('.') || '0');
  if (!v) return { test: () => false, named: undefined };
  const [a, b, c2] = v.nums;
  const bound = (nums: [number, number, number]): Ver => ({ nums, pre: [] });
  const upper = (): Ver =>
    given <= 1 ? bound([a + 1, 0, 0]) : given === 2 ? bound([a, b + 1, 0]) : bound([a, b, c2 + 1]);
  let test: Test;
  if (op === '^') {
    const hi =
      a > 0 || given === 1
        ? bound([a + 1, 0, 0])
        : b > 0 || given === 2
          ? bound([0, b + 1, 0])
          : bound([0, 0, c2 + 1]);
    test = (x) => cmp(x, v) >= 0 && cmp(x, hi) < 0;
  } else if (op === '~') {
    const hi = given <= 1 ? bound([a + 1, 0, 0]) : bound([a, b + 1, 0]);
    test = (x) => cmp(x, v) >= 0 && cmp(x, hi) < 0;
  } else if (op === '>=') test = (x) => cmp(x, v) >= 0;
  else if (op === '>') test = given < 3 ? (x) => cmp(x, upper()) >= 0 : (x) => cmp(x, v) > 0;
  else if (op === '<=') test = given < 3 ? (x) => cmp(x, upper()) < 0 : (x) => cmp(x, v) <= 0;
  else if (op === '<') test = (x) => cmp(x, v) < 0;
  else if (given < 3) test = (x) => cmp(x, v) >= 0 && cmp(x, upper()) < 0;
  else test = (x) => cmp(x, v) === 0;
  return { test, named: v };
}

/** Whether `version` satisfies `range`. */
export function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  if (!v) return range.trim() === '' || range.trim() === version.trim();
  return range.split('||').some((alt) => {
    const comps = alt
      .trim()
      .replace(/(\^|~|>=|<=|>|<|=)\s+/g, '$1')
      .split(/\s+/)
      .filter((c) => c !== '');
    if (comps.length === 0) return v.pre.length === 0;
    const parsed = comps.map(comparator);
    if (!parsed.every((p) => p.test(v))) return false;
    if (v.pre.length === 0) return true;
    // a pre-release only matches a range naming a pre-release of the same major.minor.patch
    return parsed.some(
      (p) => p.named !== undefined && p.named.pre.length > 0 && p.named.nums.every((n, i) => n === v.nums[i]),
    );
  });
}
