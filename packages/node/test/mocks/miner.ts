/** The miner double: `FakeMiner implements MinerControl` (src/pow/pow-service.ts), which only records its toggles. */
import type { MinerControl } from '../../src/pow/index.ts';

export class FakeMiner implements MinerControl {
  isMining = false;
  starts = 0;
  closed = false;
  start(): void {
    this.isMining = true;
    this.starts++;
  }
  stop(): void {
    this.isMining = false;
  }
  async close(): Promise<void> {
    this.closed = true;
    this.isMining = false;
  }
}
