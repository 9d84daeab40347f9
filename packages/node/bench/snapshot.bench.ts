/** Ledger state snapshots (src/ledger/snapshot.ts): encode + decode time and size of a 100k-note state. */
import { decodeLedgerState, encodeLedgerState } from '../src/ledger/snapshot.ts';
import type { LedgerState } from '../src/ledger/state.ts';
import { context, withNotes } from './fixtures.ts';
import { durationMs, type Figure } from './harness.ts';

let cached: LedgerState | undefined;

/** Genesis plus 100k notes; as after genesis, the epoch states share the notes and the UTXO tree. */
function state100k(): LedgerState {
  if (cached) return cached;
  const s = withNotes(context().state, 100_000).state;
  cached = {
    ...s,
    epoch_state: { ...s.epoch_state, notes: s.notes, utxos: s.utxos },
    next_epoch_state: { ...s.next_epoch_state, notes: s.notes, utxos: s.utxos },
  };
  return cached;
}

export const figures: Figure[] = [
  {
    name: 'ledger.snapshot_100k_ms',
    unit: 'ms',
    measure() {
      const s = state100k();
      return durationMs(
        () => {
          decodeLedgerState(encodeLedgerState(s));
        },
        { rounds: 5, minMs: 1, warmupMs: 0 },
      );
    },
  },
  {
    name: 'ledger.snapshot_100k_bytes',
    unit: 'bytes',
    measure: () => encodeLedgerState(state100k()).length,
  },
];
