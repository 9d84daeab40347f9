/**
 * Slots from wall-clock time: slot = floor((now − genesis) / duration), 0 before genesis.
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
