/**
 * The wallet's notes at one block: the notes of the ledger state owned by the wallet's known keys,
 * indexed by public key (pk → note id → record). Persistent maps: the state of a block shares all but
 * its changes with its parent's, so a state per block above the LIB costs only what the blocks change.
 *
 * A block's state is derived from its ledger state, not by replaying its transactions: the changes of
 * `parent.notes` → `block.notes` (a `PMap.diff`, which skips shared subtrees), filtered on the known
 * keys, are exactly the wallet's changes, however the notes appeared or went (transfers, deposits, SDP
 * locks and rewards, claims, genesis).
 */
import type { Fr } from '../crypto/field.ts';
import { frToBytes } from '../crypto/field.ts';
import type { NoteRecord } from '../ledger/state.ts';
import type { Utxo } from '../mantle/note.ts';
import { bigintKeys, PMap } from '../util/pmap.ts';
import type { LedgerInput } from './builder.ts';

export type NotesOfKey = PMap<Fr, NoteRecord>;

/** The utxo of a ledger note record (its op id as the record keeps it: the field element's bytes). */
export function recordUtxo(r: NoteRecord): Utxo {
  return { op_id: frToBytes(r.origin), output_index: r.output_index, note: r.note };
}

export class OwnedNotes {
  static readonly EMPTY = new OwnedNotes(PMap.empty(bigintKeys));

  private constructor(readonly byPk: PMap<Fr, NotesOfKey>) {}

  /** The owned notes of a ledger note map: one scan of every note (start-up fallback only). */
  static scan(notes: PMap<Fr, NoteRecord>, known: ReadonlySet<Fr>): OwnedNotes {
    const byPk = new Map<Fr, [Fr, NoteRecord][]>();
    notes.forEach((r, id) => {
      if (!known.has(r.note.pk)) return;
      const list = byPk.get(r.note.pk);
      if (list) list.push([id, r]);
      else byPk.set(r.note.pk, [[id, r]]);
    });
    return new OwnedNotes(
      PMap.from(
        bigintKeys,
        [...byPk].map(([pk, list]) => [pk, PMap.from<Fr, NoteRecord>(bigintKeys, list)] as const),
      ),
    );
  }

  /** The owned notes from a list of (id, record) pairs (a persisted snapshot). */
  static of(entries: Iterable<readonly [Fr, NoteRecord]>): OwnedNotes {
    let out = OwnedNotes.EMPTY.byPk;
    for (const [id, r] of entries)
      out = out.set(r.note.pk, (out.get(r.note.pk) ?? PMap.empty(bigintKeys)).set(id, r));
    return new OwnedNotes(out);
  }

  /**
   * The owned notes after a block, from this (its parent's) state and the two ledger note maps.
   * Returns this object itself when the block changes no owned note.
   */
  next(parentNotes: PMap<Fr, NoteRecord>, notes: PMap<Fr, NoteRecord>, known: ReadonlySet<Fr>): OwnedNotes {
    let byPk = this.byPk;
    parentNotes.diff(notes, (id, before, after) => {
      // A note id commits to its pk, so both sides (when both exist) have the same owner.
      const pk = (after ?? before)!.note.pk;
      if (!known.has(pk)) return;
      const mine = byPk.get(pk) ?? PMap.empty<Fr, NoteRecord>(bigintKeys);
      const updated = after === undefined ? mine.delete(id) : mine.set(id, after);
      byPk = updated.size === 0 ? byPk.delete(pk) : byPk.set(pk, updated);
    });
    return byPk === this.byPk ? this : new OwnedNotes(byPk);
  }

  /** These notes without those of `pks` (keys the wallet stopped tracking); this object when it has none. */
  without(pks: readonly Fr[]): OwnedNotes {
    let byPk = this.byPk;
    for (const pk of pks) if (byPk.has(pk)) byPk = byPk.delete(pk);
    return byPk === this.byPk ? this : new OwnedNotes(byPk);
  }

  /** The notes of one key; undefined when it holds none (F: the key leaves the index with its last note). */
  notesOf(pk: Fr): NotesOfKey | undefined {
    return this.byPk.get(pk);
  }

  /** Every owned note, as (id, record) pairs. */
  *entries(): IterableIterator<[Fr, NoteRecord]> {
    for (const notes of this.byPk.values()) yield* notes.entries();
  }

  /**
   * The funding candidates of these keys (F `fund_tx`): their notes minus SDP-locked notes, notes
   * held by a channel and `excluded` ones (spent or locked by the builder, reserved).
   */
  spendable(pks: readonly Fr[], excluded: ReadonlySet<Fr>): LedgerInput[] {
    const out: LedgerInput[] = [];
    const seen = new Set<Fr>();
    for (const pk of pks) {
      // inferred: a key named twice is read once (F would list its notes twice and build a transfer
      // spending a note twice, which the ledger refuses) (docs/design/fidelity.md)
      if (seen.has(pk)) continue;
      seen.add(pk);
      this.byPk.get(pk)?.forEach((r, id) => {
        if (r.locked_by !== null || r.channel !== null || excluded.has(id)) return;
        out.push({ id, utxo: recordUtxo(r) });
      });
    }
    return out;
  }
}
