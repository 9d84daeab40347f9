/**
 * Ledger events of a block, as `GET /cryptarchia/blocks/{id}/events` shows them: header events first
 * (epoch-change effects), then transaction events in transaction and op order.
 */

import type { Json } from '@logos-ts/shared/json';
import { bytesToHex } from '../codec/hex.ts';
import { fr, u64 } from '../codec/schema.ts';
import type { Fr } from '../crypto/field.ts';
import { type Utxo, utxo } from '../mantle/note.ts';

export type HeaderEvent =
  | { type: 'SdpNoteUnlocked'; note_id: Fr; declaration_id: Uint8Array }
  | { type: 'SdpRewardDistributed'; utxo: Utxo };

export interface DepositedNote {
  note_id: Fr;
  value: bigint;
  pk: Fr;
}

export type TxEventPayload =
  | { type: 'Deposit'; channel_id: Uint8Array; amount: bigint; metadata: Uint8Array; notes: DepositedNote[] }
  | { type: 'LeaderRewardClaimed'; voucher_nullifier: Fr; utxo: Utxo }
  | { type: 'PoWRewardClaimed'; pow_nullifier: Fr; utxo: Utxo };

export interface TxEvent {
  tx_hash: Uint8Array;
  op_id: Uint8Array;
  payload: TxEventPayload;
}

export type LedgerEvent = { kind: 'Header'; event: HeaderEvent } | { kind: 'Tx'; event: TxEvent };

function headerEventJson(e: HeaderEvent): Json {
  switch (e.type) {
    case 'SdpNoteUnlocked':
      return {
        SdpNoteUnlocked: {
          note_id: fr.toJson(e.note_id),
          service_type: 'BN',
          declaration_id: bytesToHex(e.declaration_id),
        },
      };
    case 'SdpRewardDistributed':
      return { SdpRewardDistributed: { service_type: 'BN', utxo: utxo.toJson(e.utxo) } };
  }
}

function txPayloadJson(p: TxEventPayload): Json {
  switch (p.type) {
    case 'Deposit':
      return {
        Deposit: {
          channel_id: bytesToHex(p.channel_id),
          amount: u64.toJson(p.amount),
          metadata: Array.from(p.metadata),
          notes: p.notes.map((n) => ({
            note_id: fr.toJson(n.note_id),
            value: u64.toJson(n.value),
            pk: fr.toJson(n.pk),
          })),
        },
      };
    case 'LeaderRewardClaimed':
      return {
        LeaderRewardClaimed: { voucher_nullifier: fr.toJson(p.voucher_nullifier), utxo: utxo.toJson(p.utxo) },
      };
    case 'PoWRewardClaimed':
      return { PoWRewardClaimed: { pow_nullifier: fr.toJson(p.pow_nullifier), utxo: utxo.toJson(p.utxo) } };
  }
}

/** The API form: `[{"Header":{...}}, {"Tx":{"tx_hash":..,"op_id":[..],"payload":{..}}}]`. */
export function eventsToJson(events: readonly LedgerEvent[]): Json {
  return events.map((e) =>
    e.kind === 'Header'
      ? { Header: headerEventJson(e.event) }
      : {
          Tx: {
            tx_hash: bytesToHex(e.event.tx_hash),
            op_id: Array.from(e.event.op_id),
            payload: txPayloadJson(e.event.payload),
          },
        },
  );
}
