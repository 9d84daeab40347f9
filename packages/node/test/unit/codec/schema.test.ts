import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJson } from '@logos-ts/shared/json';
import { u8, u64 } from '../../../src/codec/schema.ts';

test('integer fields refuse integers written as floats (1.0, 1e2), as serde_json does', () => {
  for (const text of ['1.0', '1e2', '1E2', '100e-2', '-0.0']) {
    const v = parseJson(text);
    assert.throws(() => u64.fromJson(v), /expected u64, got a floating point number/, text);
    assert.throws(() => u8.fromJson(v), /expected u8, got a floating point number/, text);
  }
  assert.equal(u64.fromJson(parseJson('100')), 100n);
});
