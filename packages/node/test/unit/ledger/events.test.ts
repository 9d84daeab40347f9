import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stringifyJson } from '@logos-ts/shared/json';
import { eventsToJson } from '../../../src/ledger/events.ts';

test('events serialise as formats.md §4 shows them: header events, then tx events', () => {
  const op_id = new Uint8Array(32).fill(1);
  const utxo = { op_id, output_index: 0, note: { value: 18446744073709551615n, pk: 2n } };
  const text = stringifyJson(
    eventsToJson([
      {
        kind: 'Header',
        event: { type: 'SdpNoteUnlocked', note_id: 1n, declaration_id: new Uint8Array(32).fill(0xab) },
      },
      { kind: 'Header', event: { type: 'SdpRewardDistributed', utxo } },
      {
        kind: 'Tx',
        event: {
          tx_hash: new Uint8Array(32).fill(0xcd),
          op_id,
          payload: {
            type: 'Deposit',
            channel_id: new Uint8Array(32),
            amount: 5n,
            metadata: Uint8Array.of(1, 2),
            notes: [{ note_id: 3n, value: 5n, pk: 4n }],
          },
        },
      },
      {
        kind: 'Tx',
        event: {
          tx_hash: new Uint8Array(32),
          op_id,
          payload: { type: 'LeaderRewardClaimed', voucher_nullifier: 6n, utxo },
        },
      },
      {
        kind: 'Tx',
        event: {
          tx_hash: new Uint8Array(32),
          op_id,
          payload: { type: 'PoWRewardClaimed', pow_nullifier: 7n, utxo },
        },
      },
    ]),
  );
  const fr = (n: number) => `${n.toString(16).padStart(2, '0')}${'00'.repeat(31)}`;
  const ints = Array(32).fill(1).join(',');
  const u = `{"op_id":[${ints}],"output_index":0,"note":{"value":18446744073709551615,"pk":"${fr(2)}"}}`;
  assert.equal(
    text,
    '[' +
      `{"Header":{"SdpNoteUnlocked":{"note_id":"${fr(1)}","service_type":"BN","declaration_id":"${'ab'.repeat(32)}"}}},` +
      `{"Header":{"SdpRewardDistributed":{"service_type":"BN","utxo":${u}}}},` +
      `{"Tx":{"tx_hash":"${'cd'.repeat(32)}","op_id":[${ints}],"payload":{"Deposit":{"channel_id":"${'00'.repeat(32)}","amount":5,"metadata":[1,2],"notes":[{"note_id":"${fr(3)}","value":5,"pk":"${fr(4)}"}]}}}},` +
      `{"Tx":{"tx_hash":"${'00'.repeat(32)}","op_id":[${ints}],"payload":{"LeaderRewardClaimed":{"voucher_nullifier":"${fr(6)}","utxo":${u}}}}},` +
      `{"Tx":{"tx_hash":"${'00'.repeat(32)}","op_id":[${ints}],"payload":{"PoWRewardClaimed":{"pow_nullifier":"${fr(7)}","utxo":${u}}}}}` +
      ']',
  );
  assert.equal(stringifyJson(eventsToJson([])), '[]');
});
