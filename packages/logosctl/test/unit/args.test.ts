/**
 * `logosctl call` argument typing (operator.md §1.4; `call_command.cpp` @1a4f56fe) and the nlohmann-style
 * JSON the envelope is written in (§1.5).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { JsonFloat } from '@logos-ts/shared/json';
import { InvalidArgs, typeArg } from '../../src/args.ts';
import { dumpSorted, formatDouble } from '../../src/output.ts';

const dir = mkdtempSync(join(tmpdir(), 'ctl-args-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('scalars: bool, 64-bit integers exact, decimals as doubles, the rest as given', () => {
  assert.equal(typeArg('true', dir), true);
  assert.equal(typeArg('false', dir), false);
  assert.equal(typeArg('True', dir), 'True');
  assert.equal(typeArg('65536', dir), 65536);
  assert.equal(typeArg('-2147483649', dir), -2147483649);
  assert.equal(typeArg('+7', dir), 7);
  assert.equal(typeArg(' 12\n', dir), 12);
  assert.equal(typeArg('9223372036854775807', dir), 9223372036854775807n);
  assert.equal(typeArg('18446744073709551615', dir), 18446744073709551615n);
  assert.deepEqual(typeArg('18446744073709551616', dir), new JsonFloat(2 ** 64));
  assert.deepEqual(typeArg('1.25', dir), new JsonFloat(1.25));
  assert.deepEqual(typeArg('.5e1', dir), new JsonFloat(5));
  assert.deepEqual(typeArg('0x1p3', dir), new JsonFloat(8));
  assert.equal(typeArg('', dir), '');
  assert.equal(typeArg(' ', dir), ' ');
  assert.equal(typeArg('1.2.3', dir), '1.2.3');
  assert.equal(typeArg('12abc', dir), '12abc');
  assert.equal(typeArg('/ip4/1.2.3.4/udp/3000/quic-v1', dir), '/ip4/1.2.3.4/udp/3000/quic-v1');
});

test('prefixes: str: verbatim, json: parsed (inline or @file), @file raw then typed', () => {
  assert.equal(typeArg('str:42', dir), '42');
  assert.equal(typeArg('str:@x', dir), '@x');
  assert.equal(typeArg('str:json:hi', dir), 'json:hi');
  assert.deepEqual(typeArg('json:[1,{"a":"b"}]', dir), [1, { a: 'b' }]);
  writeFileSync(join(dir, 'p.json'), '{"initial_peers":[]}\n');
  writeFileSync(join(dir, 'empty'), '');
  writeFileSync(join(dir, 'n'), '123\n');
  assert.equal(typeArg('@p.json', dir), '{"initial_peers":[]}\n');
  assert.deepEqual(typeArg('json:@p.json', dir), { initial_peers: [] });
  assert.equal(typeArg('@empty', dir), '');
  assert.equal(typeArg('@n', dir), 123);
  assert.throws(
    () => typeArg('@missing', dir),
    (e) => e instanceof InvalidArgs && e.message === 'Failed to read file: missing',
  );
  assert.throws(() => typeArg('json:@missing', dir), /Failed to read file: missing/);
  assert.throws(() => typeArg('json:{', dir), {
    name: 'InvalidArgs',
    code: 'ARGS_INVALID',
    message: /^Invalid JSON in argument 'json:\{'/,
  });
});

test('doubles as nlohmann writes them', () => {
  assert.equal(formatDouble(100000), '100000.0');
  assert.equal(formatDouble(1.5), '1.5');
  assert.equal(formatDouble(-0.25), '-0.25');
  assert.equal(formatDouble(0.0001), '0.0001');
  assert.equal(formatDouble(0.00001), '1e-05');
  assert.equal(formatDouble(1e14), '100000000000000.0');
  assert.equal(formatDouble(1e15), '1e+15');
  assert.equal(formatDouble(1.2345e20), '1.2345e+20');
  assert.equal(formatDouble(0), '0.0');
  assert.equal(formatDouble(Number.NaN), 'null');
});

test('sorted compact JSON at every depth', () => {
  assert.equal(
    dumpSorted({ status: 'ok', result: { value: [{ z: 1, a: 2n ** 64n - 1n }], error: null }, method: 'm' }),
    '{"method":"m","result":{"error":null,"value":[{"a":18446744073709551615,"z":1}]},"status":"ok"}',
  );
});
