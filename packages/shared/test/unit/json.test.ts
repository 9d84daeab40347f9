import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonFloat, JsonSyntaxError, parseJson, stringifyJson } from '../../src/json.ts';

test('u64::MAX survives a parse/stringify round trip exactly', () => {
  const text = '{"threshold":18446744073709551615,"balance":19946577045}';
  const v = parseJson(text) as { threshold: bigint; balance: number };
  assert.equal(v.threshold, 18446744073709551615n);
  assert.equal(v.balance, 19946577045);
  assert.equal(stringifyJson(v), text);
});

test('integers just above 2^53 are bigints, safe ones are numbers', () => {
  assert.equal(parseJson('9007199254740993'), 9007199254740993n);
  assert.equal(parseJson('9007199254740991'), 9007199254740991);
  assert.equal(parseJson('[-9007199254740993]')?.toString(), '-9007199254740993');
  assert.deepEqual(parseJson('[1234567890123456789012, 1.5, 2e3]'), [
    1234567890123456789012n,
    new JsonFloat(1.5),
    new JsonFloat(2000),
  ]);
});

test('integers written as floats (1.0, 1e2) are floats', () => {
  for (const text of ['1.0', '1e2', '1E2', '100e-2', '-0.0']) {
    const v = parseJson(text);
    assert.ok(v instanceof JsonFloat, text);
  }
  assert.equal(parseJson('100'), 100);
  // A digit followed by `e` inside a string keeps its meaning.
  assert.deepEqual(parseJson('{"id":"1e2","n":3}'), { id: '1e2', n: 3 });
  assert.equal(stringifyJson(parseJson('[1.5,2e3]')), '[1.5,2000]');
});

test('long digit runs inside strings do not change values', () => {
  const v = parseJson('{"id":"12345678901234567890","n":1}');
  assert.deepEqual(v, { id: '12345678901234567890', n: 1 });
});

test('the slow path parses the same as JSON.parse', () => {
  const samples = [
    '{"a":[1,2,{"b":null,"c":true,"d":false}],"e":"x\\u00e9\\n\\"q\\"","f":-0.5e-3,"g":{}}',
    '[]',
    '  [ 1 , 2 ]  ',
    '"\\ud83d\\ude00"',
    '{"a":{"a":{"a":[[[]]]}}}',
  ];
  for (const s of samples) {
    const padded = `[${s}, 12345678901234567890]`;
    const ours = parseJson(padded) as unknown[];
    assert.deepEqual(JSON.parse(JSON.stringify(ours[0])), JSON.parse(s));
    assert.equal(ours[1], 12345678901234567890n);
  }
});

test('__proto__ keys become own properties, never the prototype', () => {
  const v = parseJson('{"__proto__":{"polluted":1},"x":12345678901234567890}') as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.deepEqual(Object.keys(v), ['__proto__', 'x']);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('syntax errors are rejected on both paths', () => {
  for (const bad of [
    '',
    '{',
    '{"a":}',
    '[1,]',
    '01',
    '1.',
    '-',
    '"abc',
    '{"a":1}x',
    'tru',
    '{"a" 1}',
    '"\u0001"',
    '[12345678901234567890,]',
    '{"a":12345678901234567890',
  ]) {
    assert.throws(() => parseJson(bad), SyntaxError, bad);
  }
  assert.throws(() => parseJson('[99999999999999999999 1]'), JsonSyntaxError);
});

test('stringify is compact, keeps key order, skips undefined members', () => {
  assert.equal(
    stringifyJson({ b: 1, a: [1, 'x', null, true, undefined], c: undefined, d: { e: 2n ** 64n - 1n } }),
    '{"b":1,"a":[1,"x",null,true,null],"d":{"e":18446744073709551615}}',
  );
  assert.equal(stringifyJson('é"\n'), JSON.stringify('é"\n'));
  assert.throws(() => stringifyJson({ b: new Uint8Array(1) }), TypeError);
});

test('deep nesting is refused, not a stack overflow', () => {
  const deep = `${'['.repeat(100000)}12345678901234567890${']'.repeat(100000)}`;
  assert.throws(() => parseJson(deep), JsonSyntaxError);
});
