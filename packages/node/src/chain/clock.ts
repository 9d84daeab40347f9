/**
 * Slots from wall-clock time: slot = floor((now − genesis) / duration), 0 before genesis.
 * F (consensus/cryptarchia-engine/src/time.rs) divides whole elapsed seconds by whole slot seconds:
 * the same slot for every whole-second duration (floor(floor(x)/n) = floor(x/n)).
 * inferred: sub-second durations (test deployments only) count in milliseconds; F's whole-second
 * arithmetic cannot run them (docs/design/fidelity.md)
 */
export class SlotClock {
  constructor(
    readonly genesisTimeMs: number,
    readonly slotDurationMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  slotAt(ms: number): bigint {
    if (ms < this.genesisTimeMs) return 0n;
    return BigInt(Math.floor((ms - this.genesisTimeMs) / this.slotDurationMs));
  }

  /** The clock's time, in milliseconds since the Unix epoch. */
  nowMs(): number {
    return this.now();
  }

  currentSlot(): bigint {
    return this.slotAt(this.now());
  }

  slotStartMs(slot: bigint): number {
    return this.genesisTimeMs + Number(slot) * this.slotDurationMs;
  }

  /** Milliseconds until `slot` starts (0 if it already has). */
  msUntil(slot: bigint): number {
    return Math.max(0, this.slotStartMs(slot) - this.now());
  }

  beforeGenesis(): boolean {
    return this.now() < this.genesisTimeMs;
  }
}
