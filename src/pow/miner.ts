/**
 * Placeholder of the ticket miner, with the agreed interface only: the real miner (worker threads
 * searching every block of the reward window) replaces this file. This one searches nothing.
 */
import type { Logger } from 'pino';
import type { IChain } from '../chain/index.ts';
import type { WinnerStore } from './winners.ts';

export interface MinerOptions {
  readonly threads: number;
  readonly concurrencyPerBlock: number;
}

export interface MinerDeps {
  readonly chain: Pick<IChain, 'on' | 'off' | 'tip' | 'stateOf' | 'config'>;
  readonly store: WinnerStore;
  readonly logger: Logger;
  readonly signal?: AbortSignal;
}

export class Miner {
  #mining = false;
  readonly stats = { attempts: 0n, winners: 0 };

  constructor(
    readonly opts: MinerOptions,
    readonly deps: MinerDeps,
  ) {}

  start(): void {
    this.#mining = true;
  }

  stop(): void {
    this.#mining = false;
  }

  get isMining(): boolean {
    return this.#mining;
  }

  async close(): Promise<void> {
    this.#mining = false;
  }
}
