/** The Blend network's message cache, F `blend/network/src/core/with_core/behaviour/message_cache.rs` tests. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MessageCache } from '../../../../src/blend/network/index.ts';

// F: message_cache::tests::forwarded_status_not_downgraded_to_processed
test('forwarded_status_not_downgraded_to_processed', () => {
  const c = new MessageCache();
  c.markForwarded('m');
  assert.equal(c.markProcessed('m'), false);
  assert.equal(c.status('m'), 'forwarded');
});

// F: message_cache::tests::processed_status_upgraded_to_forwarded
test('processed_status_upgraded_to_forwarded', () => {
  const c = new MessageCache();
  assert.equal(c.markProcessed('m'), true);
  assert.equal(c.status('m'), 'processed');
  c.markForwarded('m');
  assert.equal(c.status('m'), 'forwarded');
});

// F: message_cache::tests::is_message_processed_true_for_both_statuses
test('is_message_processed_true_for_both_statuses', () => {
  const c = new MessageCache();
  c.markProcessed('p');
  c.markForwarded('f');
  assert.equal(c.isProcessed('p'), true);
  assert.equal(c.isProcessed('f'), true);
  assert.equal(c.isProcessed('other'), false);
});

// F: message_cache::tests::is_message_forwarded_returns_false_for_processed_status
test('is_message_forwarded_returns_false_for_processed_status', () => {
  const c = new MessageCache();
  c.markProcessed('p');
  assert.equal(c.isForwarded('p'), false);
});

// F: message_cache::tests::mark_as_seen_from_peer_returns_false_on_duplicate
test('mark_as_seen_from_peer_returns_false_on_duplicate', () => {
  const c = new MessageCache();
  assert.equal(c.markSeenFrom('m', 'peer'), true);
  assert.equal(c.markSeenFrom('m', 'peer'), false);
});

// F: message_cache::tests::mark_as_seen_from_peer_is_independent_per_peer
test('mark_as_seen_from_peer_is_independent_per_peer', () => {
  const c = new MessageCache();
  assert.equal(c.markSeenFrom('m', 'peer1'), true);
  assert.equal(c.markSeenFrom('m', 'peer2'), true);
});

// F: message_cache::tests::remove_peer_info_clears_seen_messages
test('remove_peer_info_clears_seen_messages', () => {
  const c = new MessageCache();
  c.markSeenFrom('m', 'peer');
  assert.deepEqual(c.seenFrom('peer'), ['m']);
  c.removePeer('peer');
  assert.deepEqual(c.seenFrom('peer'), []);
  // the peer may send it again on a new connection
  assert.equal(c.markSeenFrom('m', 'peer'), true);
});

// F: message_cache::tests::remove_peer_info_does_not_affect_other_peers
test('remove_peer_info_does_not_affect_other_peers', () => {
  const c = new MessageCache();
  c.markSeenFrom('m1', 'peer1');
  c.markSeenFrom('m2', 'peer2');
  c.removePeer('peer1');
  assert.deepEqual(c.seenFrom('peer1'), []);
  assert.deepEqual(c.seenFrom('peer2'), ['m2']);
});
