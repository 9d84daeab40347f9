/**
 * Reading proving keys and witnesses: a well-formed file of each kind is read, and every way a file
 * can be truncated, padded, foreign or inconsistent is refused with a message naming the fault
 * (before anything is placed in the engine's memory).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FQ_MODULUS, FR_MODULUS } from '../../src/engine/code.ts';
import { Groth16FileError, parseWtns, parseZkey } from '../../src/files.ts';

function le(v: bigint, n: number): number[] {
  return Array.from({ length: n }, (_, i) => Number((v >> BigInt(8 * i)) & 0xffn));
}
const u32 = (v: number) => le(BigInt(v), 4);

function binFile(magic: string, sections: [number, number[]][]): Uint8Array {
  const out = [...new TextEncoder().encode(magic), ...u32(1), ...u32(sections.length)];
  for (const [type, body] of sections) out.push(...u32(type), ...le(BigInt(body.length), 8), ...body);
  return new Uint8Array(out);
}

interface ZkeyShape {
  nVars: number;
  nPublic: number;
  domainSize: number;
  coefs: [number, number, number][];
  protocol?: number;
  q?: bigint;
}

function zkey(s: ZkeyShape, edit: (sections: [number, number[]][]) => void = () => {}): Uint8Array {
  const g1 = () => new Array(64).fill(1);
  const g2 = () => new Array(128).fill(1);
  const header = [
    ...u32(32),
    ...le(s.q ?? FQ_MODULUS, 32),
    ...u32(32),
    ...le(FR_MODULUS, 32),
    ...u32(s.nVars),
    ...u32(s.nPublic),
    ...u32(s.domainSize),
    ...g1(),
    ...g1(),
    ...g2(),
    ...g2(),
    ...g1(),
    ...g2(),
  ];
  const coefs = [
    ...u32(s.coefs.length),
    ...s.coefs.flatMap(([m, c, sig]) => [...u32(m), ...u32(c), ...u32(sig), ...le(5n, 32)]),
  ];
  const points = (n: number, size: number) => new Array(n * size).fill(2);
  const sections: [number, number[]][] = [
    [1, u32(s.protocol ?? 1)],
    [2, header],
    [3, points(s.nPublic + 1, 64)],
    [4, coefs],
    [5, points(s.nVars, 64)],
    [6, points(s.nVars, 64)],
    [7, points(s.nVars, 128)],
    [8, points(Math.max(0, s.nVars - s.nPublic - 1), 64)],
    [9, points(s.domainSize, 64)],
  ];
  edit(sections);
  return binFile('zkey', sections);
}

const good: ZkeyShape = {
  nVars: 5,
  nPublic: 1,
  domainSize: 4,
  coefs: [
    [0, 0, 1],
    [1, 3, 4],
  ],
};

function refused(bytes: Uint8Array, pattern: RegExp, parse: (b: Uint8Array) => unknown = parseZkey): void {
  assert.throws(
    () => parse(bytes),
    (e: unknown) =>
      e instanceof Groth16FileError && e.code === 'GROTH16_FILE_INVALID' && pattern.test(e.message),
  );
}

describe('proving keys (.zkey)', () => {
  test('a well-formed key is read: sizes, points and coefficients', () => {
    const z = parseZkey(zkey(good));
    assert.equal(z.nVars, 5);
    assert.equal(z.nPublic, 1);
    assert.equal(z.domainSize, 4);
    assert.equal(z.nCoefficients, 2);
    assert.equal(z.a.length, 5 * 64);
    assert.equal(z.b2.length, 5 * 128);
    assert.equal(z.c.length, 3 * 64);
    assert.equal(z.h.length, 4 * 64);
  });

  test('foreign, truncated and padded files', () => {
    refused(new Uint8Array(5), /not a zkey file/);
    refused(binFile('wtns', []), /not a zkey file/);
    const ok = zkey(good);
    refused(ok.subarray(0, ok.length - 1), /past the end/);
    refused(new Uint8Array([...ok, 0]), /after the last section/);
  });

  test('another protocol, another curve, a section missing or twice', () => {
    refused(zkey({ ...good, protocol: 2 }), /protocol 2/);
    refused(zkey({ ...good, q: FQ_MODULUS - 2n }), /base field is not BN254/);
    refused(
      zkey(good, (s) => s.splice(8, 1)),
      /no section 9/,
    );
    refused(
      zkey(good, (s) => s.push([9, []])),
      /section 9 twice/,
    );
  });

  test('sizes that disagree with the header', () => {
    refused(zkey({ ...good, domainSize: 6 }), /domain size 6/);
    refused(zkey({ ...good, nPublic: 5 }), /5 public signals among 5/);
    refused(
      zkey(good, (s) => s[4]![1].push(0)),
      /A points/,
    );
    refused(
      zkey(good, (s) => s[6]![1].splice(0, 128)),
      /B2 points/,
    );
    refused(
      zkey(good, (s) => s[3]![1].push(1)),
      /coefficients in/,
    );
  });

  test('a coefficient out of range: matrix, constraint or signal', () => {
    refused(zkey({ ...good, coefs: [[2, 0, 0]] }), /coefficient 0 \(matrix 2/);
    refused(zkey({ ...good, coefs: [[0, 4, 0]] }), /constraint 4/);
    refused(
      zkey({
        ...good,
        coefs: [
          [0, 0, 1],
          [1, 0, 5],
        ],
      }),
      /coefficient 1 .*signal 5/,
    );
  });
});

describe('witnesses (.wtns)', () => {
  const wtns = (count: number, values: bigint[], prime = FR_MODULUS) =>
    binFile('wtns', [
      [1, [...u32(32), ...le(prime, 32), ...u32(count)]],
      [2, values.flatMap((v) => le(v, 32))],
    ]);
  test('a well-formed witness is read', () => {
    const w = parseWtns(wtns(2, [1n, 7n]));
    assert.equal(w.count, 2);
    assert.equal(w.values.length, 64);
  });
  test('another field, a count that disagrees, a missing section', () => {
    refused(wtns(2, [1n, 7n], FQ_MODULUS), /not the BN254 scalar field/, parseWtns);
    refused(wtns(3, [1n, 7n]), /3 values in 64 bytes/, parseWtns);
    refused(
      binFile('wtns', [[1, [...u32(32), ...le(FR_MODULUS, 32), ...u32(0)]]]),
      /no section 2/,
      parseWtns,
    );
  });
});
