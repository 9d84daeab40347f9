/**
 * Compile-time checks of the client's types (`npm test` type-checks before running): required path
 * parameters, required query parameters, enum values and body shapes come from the route table.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClient, type LogosClient } from '../../../client/index.ts';

function calls(c: LogosClient) {
  // @ts-expect-error the block id is a required path parameter
  void c.cryptarchiaBlock();
  // @ts-expect-error slot_from and slot_to are required
  void c.cryptarchiaBlocks();
  // @ts-expect-error order is ascending or descending
  void c.cryptarchiaBlocksRange({ query: { order: 'up' } });
  // @ts-expect-error the filter body needs `filters`
  void c.adminTracingFilter({ body: {} });
  void c.cryptarchiaBlocks({ query: { slot_from: 1n, slot_to: 2 } });
  void c.cryptarchiaBlocksRange();
  void c.cryptarchiaInfo().then((i) => {
    const slot: bigint = i.cryptarchia_info.slot;
    return slot;
  });
}

test('the client has one method per route of the table', () => {
  const c = createClient({ baseUrl: 'http://127.0.0.1:1' });
  assert.equal(typeof c.cryptarchiaInfo, 'function');
  assert.equal(typeof calls, 'function');
});
