/**
 * Block density of an epoch (F: ledger/src/cryptarchia/block_density.rs): the distinct slots occupied
 * by the chain's blocks and by the uncles they reference, inside the period of the epoch that ends
 * just before the next epoch's total stake snapshot. It drives the total stake inference.
 */
import { bigintKeys, PMap } from '../util/pmap.ts';
import { type EpochSchedule, totalStakeInferencePeriod, totalStakeSnapshotSlot } from './parameters.ts';

/** Occupied slots, as a persistent set. */
export type OccupiedSlots = PMap<bigint, true>;

export const NO_OCCUPIED_SLOTS: OccupiedSlots = PMap.empty<bigint, true>(bigintKeys);

/** The inclusive slot range whose occupied slots count towards `epoch`'s density. */
export interface DensityPeriod {
  readonly first: bigint;
  readonly last: bigint;
}

/**
 * [snapshot − period, snapshot − 1] with snapshot the total stake snapshot slot of the next epoch
 * (both ends saturating at 0): e.g. with 100-slot epochs and 3/3/4 phases, [200, 259] for epoch 2.
 */
export function densityPeriod(epoch: number, s: EpochSchedule): DensityPeriod {
  const snapshot = totalStakeSnapshotSlot(epoch + 1, s);
  const period = totalStakeInferencePeriod(s);
  return { first: saturatingSub(snapshot, period), last: saturatingSub(snapshot, 1n) };
}

function saturatingSub(a: bigint, b: bigint): bigint {
  return a > b ? a - b : 0n;
}

function within(p: DensityPeriod, slot: bigint): boolean {
  return slot >= p.first && slot <= p.last;
}

/**
 * Marks a block's slot and its uncles' slots. A block outside the period is skipped with its uncles
 * (late references cannot change the density); uncle slots outside the period are ignored; a slot
 * occupied more than once counts once.
 */
export function markOccupiedSlots(
  occupied: OccupiedSlots,
  p: DensityPeriod,
  blockSlot: bigint,
  uncleSlots: readonly bigint[],
): OccupiedSlots {
  if (!within(p, blockSlot)) return occupied;
  return occupied.withMutations((m) => {
    m.set(blockSlot, true);
    for (const u of uncleSlots) if (within(p, u)) m.set(u, true);
  });
}

/** The measured density: how many distinct slots are occupied. */
export function blockDensity(occupied: OccupiedSlots): bigint {
  return BigInt(occupied.size);
}
