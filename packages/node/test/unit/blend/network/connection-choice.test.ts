/**
 * The connection two core nodes keep between them, F `with_core/behaviour/mod.rs`
 * `handle_connected_peer_{duplicate,reverse}_connection` and the bootstrapping tests
 * `replace_existing_with_new_connection`, `discard_new_for_existing_connection`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chooseConnection } from '../../../../src/blend/network/index.ts';

const LOW = '12D3KooWA';
const HIGH = '12D3KooWB';

test('a second connection in the same direction is a duplicate', () => {
  assert.equal(chooseConnection('dialer', 'dialer', LOW, HIGH), 'duplicate');
  assert.equal(chooseConnection('listener', 'listener', HIGH, LOW), 'duplicate');
});

test('both ends keep the connection dialled by the peer with the greater id', () => {
  // HIGH holds an inbound connection (LOW dialled) and gets an outbound one (HIGH dialled): replaces.
  assert.equal(chooseConnection('dialer', 'listener', HIGH, LOW), 'replace_existing');
  // LOW sees the same pair: its outbound connection (LOW dialled) is replaced by the inbound one.
  assert.equal(chooseConnection('listener', 'dialer', LOW, HIGH), 'replace_existing');
  // The other order of arrival: the connection HIGH dialled is kept.
  assert.equal(chooseConnection('listener', 'dialer', HIGH, LOW), 'keep_existing');
  assert.equal(chooseConnection('dialer', 'listener', LOW, HIGH), 'keep_existing');
});
