/**
 * The PoW service's section of `user_config.yaml` (`pow`), with the reference's defaults of its later
 * revision (F `services/pow/src/service.rs` @01976c8: one search thread, one attempt in flight per
 * block, auto-claim every 10 seconds, no targets; docs/design/fidelity.md):
 *
 * ```yaml
 * pow:
 *   mining: { max_threads: 1, max_tickets_per_block: 1 }   # max_threads: null → one per core
 *   auto_claim:
 *     targets: [{ public_key: <hex of a zk pk>, threshold: 1000000 }]
 *     tick: { unit: seconds, value: 10 }                    # or { unit: slots, value: n }
 * ```
 */
import { availableParallelism } from 'node:os';
import { ConfigError, hex64, int, mapping, only, u64 } from '@logos-ts/shared/config-fields';
import { hexToBytes } from '../codec/hex.ts';
import { type Fr, frFromBytes } from '../crypto/field.ts';

export type TickUnit = 'seconds' | 'slots';

export interface AutoClaimTick {
  readonly unit: TickUnit;
  /** Seconds or slots between two attempts; > 0. */
  readonly value: bigint;
}

export interface ClaimTarget {
  /** Hex of the ZK public key paid (32 bytes little-endian), lower case. */
  readonly public_key: string;
  /** The balance the key should reach; at or above it, auto-claim stops paying it. */
  readonly threshold: bigint;
}

export interface PowSection {
  readonly mining: {
    /** Ticket-search threads; null: one per core. */
    readonly max_threads: number | null;
    /** Attempts in flight per block (a concurrency degree, not a cap on tickets). */
    readonly max_tickets_per_block: number;
  };
  readonly auto_claim: {
    readonly targets: readonly ClaimTarget[];
    readonly tick: AutoClaimTick;
  };
}

// inferred: the defaults of the later reference revision (@01976c8) (docs/design/fidelity.md)
export const DEFAULT_POW: PowSection = {
  mining: { max_threads: 1, max_tickets_per_block: 1 },
  auto_claim: { targets: [], tick: { unit: 'seconds', value: 10n } },
};

/** The field element of a target's key (its hex was checked by the parser). */
export function targetKey(t: Pick<ClaimTarget, 'public_key'>): Fr {
  return frFromBytes(hexToBytes(t.public_key));
}

function zkKey(raw: unknown, path: string): string {
  const hex = hex64(raw, path);
  try {
    frFromBytes(hexToBytes(hex));
  } catch {
    throw new ConfigError(`${path}: not a ZK public key (a canonical field element)`);
  }
  return hex;
}

function parseTick(raw: unknown, path: string): AutoClaimTick {
  if (raw === undefined) return DEFAULT_POW.auto_claim.tick;
  const t = mapping(raw, path);
  only(t, ['unit', 'value'], path);
  if (t.unit !== 'seconds' && t.unit !== 'slots')
    throw new ConfigError(`${path}.unit: expected seconds or slots`);
  if (t.value === undefined) throw new ConfigError(`${path}.value: missing`);
  const value = u64(t.value, 0n, `${path}.value`);
  if (value === 0n) throw new ConfigError(`${path}.value: must be greater than 0`);
  return { unit: t.unit, value };
}

export function parsePowSection(raw: unknown): PowSection {
  const pow = mapping(raw, 'pow');
  only(pow, ['mining', 'auto_claim'], 'pow');
  const mining = mapping(pow.mining, 'pow.mining');
  only(mining, ['max_threads', 'max_tickets_per_block'], 'pow.mining');
  const threads =
    mining.max_threads === undefined
      ? DEFAULT_POW.mining.max_threads
      : mining.max_threads === null
        ? null
        : int(mining.max_threads, 1, 'pow.mining.max_threads', 1);
  if (threads !== null && threads > 256) throw new ConfigError('pow.mining.max_threads: at most 256');
  const perBlock = int(
    mining.max_tickets_per_block,
    DEFAULT_POW.mining.max_tickets_per_block,
    'pow.mining.max_tickets_per_block',
    1,
  );
  if (perBlock > 1024) throw new ConfigError('pow.mining.max_tickets_per_block: at most 1024');
  const auto = mapping(pow.auto_claim, 'pow.auto_claim');
  only(auto, ['targets', 'tick'], 'pow.auto_claim');
  const rawTargets = auto.targets ?? [];
  if (!Array.isArray(rawTargets)) throw new ConfigError('pow.auto_claim.targets: expected a list');
  const targets = rawTargets.map((raw, i): ClaimTarget => {
    const path = `pow.auto_claim.targets[${i}]`;
    const t = mapping(raw, path);
    only(t, ['public_key', 'threshold'], path);
    if (t.public_key === undefined) throw new ConfigError(`${path}.public_key: missing`);
    if (t.threshold === undefined) throw new ConfigError(`${path}.threshold: missing`);
    return {
      public_key: zkKey(t.public_key, `${path}.public_key`),
      threshold: u64(t.threshold, 0n, `${path}.threshold`),
    };
  });
  return {
    mining: { max_threads: threads, max_tickets_per_block: perBlock },
    auto_claim: { targets, tick: parseTick(auto.tick, 'pow.auto_claim.tick') },
  };
}

/**
 * Refuses auto-claim targets the wallet does not track (a target whose balance the wallet cannot see
 * would absorb every claim), with the reference's text; `knownKeys` are the hex of `wallet.known_keys`.
 */
// inferred: the keys listed as hex (F prints them with `Debug`) (docs/design/fidelity.md)
export function checkTargetsTracked(pow: PowSection, knownKeys: readonly string[]): void {
  const known = new Set(knownKeys.map((k) => k.toLowerCase()));
  const untracked = pow.auto_claim.targets.map((t) => t.public_key).filter((pk) => !known.has(pk));
  if (untracked.length > 0)
    throw new ConfigError(
      `PoW auto-claim targets are not tracked by the wallet (add them to \`wallet.known_keys\`): [${untracked.join(', ')}]`,
    );
}

/** The miner's thread count for a section: its setting, else the available cores. */
export function miningThreads(s: PowSection): number {
  return s.mining.max_threads ?? availableParallelism();
}
