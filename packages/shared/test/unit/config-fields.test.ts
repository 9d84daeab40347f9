/**
 * The shared config field readers: their own refusals (`<path>: expected …`, unchanged for the node's
 * config file), and the options the operator modules' parsers use to keep their pinned wording and
 * inputs (operator.md §1.2, §3.3, §4.1): a whole `message`, ranges, digit text, `"true"`/`"false"`,
 * lists, choices and IP families.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bool, ConfigError, int, ip, mapping, oneOf, only, str, strings } from '../../src/config-fields.ts';
import { LogosError } from '../../src/errors.ts';

/** Asserts `f` throws a `ConfigError` (code `CONFIG_INVALID`) whose message is exactly `message`. */
const refused = (f: () => unknown, message: string): void =>
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof ConfigError && e instanceof LogosError, String(e));
    assert.equal(e.code, 'CONFIG_INVALID');
    assert.equal(e.message, message);
    return true;
  });

describe('config field readers: their own messages', () => {
  test('absent values read as the default; wrong types are refused naming the path', () => {
    assert.equal(int(undefined, 7, 'a.b'), 7);
    assert.equal(int(5n, 7, 'a.b'), 5);
    refused(() => int(-1, 7, 'a.b'), 'a.b: expected an integer ≥ 0');
    refused(() => int('5', 7, 'a.b', 1), 'a.b: expected an integer ≥ 1');
    refused(() => bool('true', false, 'x'), 'x: expected true or false');
    refused(() => str(3, '', 'x'), 'x: expected a string');
    assert.deepEqual(mapping(null, 'm'), {});
    refused(() => mapping([], 'm'), 'm: expected a mapping');
    refused(() => only({ a: 1, zz: 2 }, ['a'], 'sec'), 'sec.zz: unknown key (expected one of a)');
  });

  test('a range, choices, lists and IP addresses have messages of the same form', () => {
    refused(() => int(11, 0, 'n', 1, { max: 10 }), 'n: expected an integer from 1 to 10');
    refused(() => oneOf('loud', 'info', 'level', ['info', 'debug']), 'level: expected one of info, debug');
    refused(() => strings('one', [], 'l'), 'l: expected a list of strings');
    refused(() => strings([''], [], 'l', { nonEmpty: true }), 'l: expected a list of non-empty strings');
    refused(() => ip('::1', '', 'addr', { family: 4 }), 'addr: expected an IPv4 address');
    refused(() => ip('localhost', '', 'addr'), 'addr: expected an IP address');
  });
});

describe('config field readers: options of the operator parsers', () => {
  test('message replaces the whole refusal', () => {
    refused(
      () => str(1, '', 'k', { message: 'Invalid configuration: "k" must be a string' }),
      'Invalid configuration: "k" must be a string',
    );
    refused(
      () => int(70000, 0, 'p', 0, { max: 65535, message: 'p must be an integer from 0 to 65535' }),
      'p must be an integer from 0 to 65535',
    );
    refused(
      () => mapping(null, '', { required: true, message: 'Invalid JSON config' }),
      'Invalid JSON config',
    );
  });

  test('only with a message lists every unknown key, in the mapping order', () => {
    const message = (unknown: readonly string[]) => `Unknown key(s): ${unknown.join(', ')}.`;
    refused(() => only({ b: 1, x: 2, a: 3, y: 4 }, ['a', 'b'], '', { message }), 'Unknown key(s): x, y.');
    assert.doesNotThrow(() => only({ a: 1 }, ['a', 'b'], '', { message }));
  });

  test('digits: decimal text reads as its number; other text is still refused', () => {
    assert.equal(int(' 8080 ', 0, 'p', 0, { max: 65535, digits: true }), 8080);
    refused(() => int('8080', 0, 'p', 0, { max: 65535 }), 'p: expected an integer from 0 to 65535');
    refused(
      () => int('-1', 0, 'p', 0, { max: 65535, digits: true }),
      'p: expected an integer from 0 to 65535',
    );
    refused(
      () => int('0x10', 0, 'p', 0, { max: 65535, digits: true }),
      'p: expected an integer from 0 to 65535',
    );
  });

  test('words: "true"/"false" read as bools, nothing else does', () => {
    assert.equal(bool('false', true, 'b', { words: true }), false);
    assert.equal(bool('true', false, 'b', { words: true }), true);
    refused(() => bool('yes', false, 'b', { words: true }), 'b: expected true or false');
  });

  test('strings: one string as a list (single), trimmed (trim), empty ones refused (nonEmpty)', () => {
    assert.deepEqual(strings(' a ', [], 'l', { single: true, trim: true }), ['a']);
    assert.deepEqual(strings(['x ', ' y'], [], 'l', { trim: true, nonEmpty: true }), ['x', 'y']);
    assert.deepEqual(strings(['', 'z'], [], 'l'), ['', 'z']);
    refused(() => strings(['  '], [], 'l', { trim: true, nonEmpty: true, message: 'M' }), 'M');
    assert.deepEqual(strings(undefined, ['d'], 'l'), ['d']);
  });
});
