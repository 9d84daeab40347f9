/**
 * Deployments: the chain a node joins. A deployment file (YAML) fixes the consensus and ledger
 * parameters, the slot duration and the genesis: either its contents (chain id, genesis time, epoch
 * nonce, the initial notes and declarations), from which the genesis block is built, or the genesis
 * block itself as the reference ships it (`genesis.block`, src/ledger/genesis-block.ts). Parsing is
 * pure: callers pass the file's text.
 *
 * Integers are read exactly (u64 values above 2^53 included). Every problem names its key.
 */

import { LogosError } from '@logos-ts/shared/errors';
import { parse } from 'yaml';
import type { Block } from '../block/block.ts';
import { DecodeError } from '../codec/errors.ts';
import { hexToBytesOrUndefined } from '../codec/hex.ts';
import { FR_MODULUS, type Fr, leBytesToBigint } from '../crypto/field.ts';
import { locatorFromString } from '../mantle/locator.ts';
import { MAX_MODULUS_SHIFT } from './blend-difficulty.ts';
import type {
  BlendDeployment,
  CircuitKeys,
  Deployment,
  GenesisSpec,
  NetworkNames,
} from './deployment-types.ts';
import { LedgerError } from './errors.ts';
import { checkGenesis } from './genesis.ts';
import { decodeGenesisBlock, type GenesisContents, genesisContents, proofTags } from './genesis-block.ts';
import {
  type BlendRewardParams,
  epochSchedule,
  type Ratio,
  SNAPSHOT_FINALIZATION_DELAY,
  slotCoeffAsF64,
} from './parameters.ts';
import { STAKE_INFERENCE_PRECISION } from './stake.ts';

export type {
  BlendDeployment,
  CircuitKeys,
  Deployment,
  GenesisDeclaration,
  GenesisNote,
  GenesisSpec,
  NetworkNames,
} from './deployment-types.ts';

export class DeploymentError extends LogosError {
  constructor(message: string) {
    super('DEPLOYMENT_INVALID', message);
  }
}

type Obj = Record<string, unknown>;

function obj(v: unknown, path: string): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new DeploymentError(`${path}: expected a mapping`);
  return v as Obj;
}

function field(o: Obj, key: string, path: string): unknown {
  if (!Object.hasOwn(o, key)) throw new DeploymentError(`${path}.${key}: missing`);
  return o[key];
}

function int(v: unknown, path: string, min = 0n, max = 0xffffffffffffffffn): bigint {
  const b = typeof v === 'bigint' ? v : typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : undefined;
  if (b === undefined) throw new DeploymentError(`${path}: expected an integer`);
  if (b < min || b > max) throw new DeploymentError(`${path}: ${b} is outside ${min}..${max}`);
  return b;
}

function small(v: unknown, path: string, min = 0, max = 0xffffffff): number {
  return Number(int(v, path, BigInt(min), BigInt(max)));
}

function str(v: unknown, path: string): string {
  if (typeof v !== 'string') throw new DeploymentError(`${path}: expected a string`);
  return v;
}

function bool(v: unknown, path: string): boolean {
  if (typeof v !== 'boolean') throw new DeploymentError(`${path}: expected true or false`);
  return v;
}

/**
 * The names a deployment gives, each defaulting to F's pattern `/logos-blockchain-<name>/<suffix>/1.0.0`.
 */
function networkNames(root: Obj, name: string, p: string): NetworkNames {
  const n = root.network === undefined || root.network === null ? {} : obj(root.network, `${p}.network`);
  const c = obj(root.cryptarchia, `${p}.cryptarchia`);
  const m = root.mempool === undefined || root.mempool === null ? {} : obj(root.mempool, `${p}.mempool`);
  // inferred: the default names follow the pattern of F's deployment files (docs/design/fidelity.md)
  const dflt = (suffix: string) => `/logos-blockchain-${name}/${suffix}/1.0.0`;
  const get = (o: Obj, key: string, path: string, suffix: string) =>
    o[key] === undefined ? dflt(suffix) : protocolName(o[key], `${path}.${key}`);
  // F: a gossip topic is any `String` (`gossipsub_protocol`, `pubsub_topic`), not a protocol name.
  const topic = (o: Obj, key: string, path: string, suffix: string) =>
    o[key] === undefined ? dflt(suffix) : str(o[key], `${path}.${key}`);
  return {
    kademlia_protocol_name: get(n, 'kademlia_protocol_name', `${p}.network`, 'kad'),
    identify_protocol_name: get(n, 'identify_protocol_name', `${p}.network`, 'identify'),
    chain_sync_protocol_name: get(n, 'chain_sync_protocol_name', `${p}.network`, 'chainsync'),
    block_topic: topic(c, 'gossipsub_protocol', `${p}.cryptarchia`, 'cryptarchia'),
    tx_topic: topic(m, 'pubsub_topic', `${p}.mempool`, 'mempool'),
  };
}

/** A protocol id: starts with `/` (F: libp2p `StreamProtocol::try_from_owned`). */
function protocolName(v: unknown, path: string): string {
  const s = str(v, path);
  if (!s.startsWith('/')) throw new DeploymentError(`${path}: a protocol name starts with "/"`);
  return s;
}

/**
 * `blend:` with F's layout (`common`, `core.scheduler.{cover,delayer}`); every key is optional and
 * defaults to F's deployment settings, the protocol name to the pattern of the other names.
 */
function blendSection(root: Obj, name: string, p: string): BlendDeployment {
  const bp = `${p}.blend`;
  const b = root.blend === undefined || root.blend === null ? {} : obj(root.blend, bp);
  const sub = (o: Obj, key: string, path: string): Obj =>
    o[key] === undefined || o[key] === null ? {} : obj(o[key], `${path}.${key}`);
  const common = sub(b, 'common', bp);
  const core = sub(b, 'core', bp);
  const scheduler = sub(core, 'scheduler', `${bp}.core`);
  const cover = sub(scheduler, 'cover', `${bp}.core.scheduler`);
  const delayer = sub(scheduler, 'delayer', `${bp}.core.scheduler`);
  const n = (o: Obj, key: string, path: string, dflt: number, min: number): number =>
    o[key] === undefined ? dflt : small(o[key], `${path}.${key}`, min);
  const real = (o: Obj, key: string, path: string, dflt: number): number => {
    if (o[key] === undefined) return dflt;
    const v = typeof o[key] === 'bigint' ? Number(o[key]) : o[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      throw new DeploymentError(`${path}.${key}: must be a non-negative number`);
    return v;
  };
  const cp = `${bp}.common`;
  const kp = `${bp}.core`;
  return {
    num_blend_layers: n(common, 'num_blend_layers', cp, 1, 1),
    // F: `MinimumNetworkSize` is validated `>= 2`.
    minimum_network_size: n(common, 'minimum_network_size', cp, 2, 2),
    protocol_name:
      common.protocol_name === undefined
        ? `/logos-blockchain-${name}/blend/1.0.0`
        : protocolName(common.protocol_name, `${cp}.protocol_name`),
    data_replication_factor: n(common, 'data_replication_factor', cp, 1, 0),
    message_frequency_per_round: real(cover, 'message_frequency_per_round', `${kp}.scheduler.cover`, 1),
    maximum_release_delay_in_rounds: n(
      delayer,
      'maximum_release_delay_in_rounds',
      `${kp}.scheduler.delayer`,
      1,
      1,
    ),
    // inferred: not a reference setting (docs/design/fidelity.md "Blend rounds shorter than a slot")
    rounds_per_slot: n(scheduler, 'rounds_per_slot', `${kp}.scheduler`, 1, 1),
    minimum_messages_coefficient: n(core, 'minimum_messages_coefficient', kp, 1, 1),
    normalization_constant: real(core, 'normalization_constant', kp, 1.03),
    activity_threshold_sensitivity: n(core, 'activity_threshold_sensitivity', kp, 1, 0),
  };
}

/** F: tx-service `DEFAULT_TX_TTL`, 24 hours. */
const DEFAULT_TX_TTL_S = 24 * 60 * 60;

/**
 * `mempool` (optional): `tx_ttl` in whole seconds, at least 1 (F: `MinimalBoundedDuration<1, SECOND>`);
 * absent means 24 h, null disables expiry. `pubsub_topic` is the network's and is not read here.
 */
function mempoolSection(v: unknown, path: string): { tx_ttl_ms: number | null } {
  if (v === undefined || v === null) return { tx_ttl_ms: DEFAULT_TX_TTL_S * 1000 };
  const m = obj(v, path);
  if (m.pubsub_topic !== undefined) str(m.pubsub_topic, `${path}.pubsub_topic`);
  if (!Object.hasOwn(m, 'tx_ttl')) return { tx_ttl_ms: DEFAULT_TX_TTL_S * 1000 };
  if (m.tx_ttl === null) return { tx_ttl_ms: null };
  // inferred: whole seconds; F's YAML spelling of the Duration is not known (docs/design/fidelity.md)
  return { tx_ttl_ms: small(m.tx_ttl, `${path}.tx_ttl`, 1, 0xffffffff) * 1000 };
}

/** A ratio written "1/30", or an integer. */
function ratio(v: unknown, path: string): Ratio {
  if (typeof v === 'string') {
    const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(v);
    if (!m || BigInt(m[2]!) === 0n) throw new DeploymentError(`${path}: expected a ratio such as "1/30"`);
    return { num: BigInt(m[1]!), den: BigInt(m[2]!) };
  }
  return { num: int(v, path), den: 1n };
}

/**
 * `sdp.blend_rewards` (optional, as each of its keys): the Blend reward parameters. Each defaults to
 * the deployment's `blend:` section, as F derives them from it (`blend::deployment::Settings::
 * rewards_params`); `rounds_per_epoch` left out means the epoch length in slots (a round is one slot).
 */
function blendRewards(v: unknown, path: string, blend: BlendDeployment): BlendRewardParams {
  const o = v === undefined ? {} : obj(v, path);
  const opt = (key: string, dflt: number, min = 0n): bigint =>
    o[key] === undefined ? BigInt(dflt) : int(o[key], `${path}.${key}`, min);
  const freq = o.message_frequency_per_round ?? blend.message_frequency_per_round;
  const f = typeof freq === 'bigint' ? Number(freq) : freq;
  if (typeof f !== 'number' || !Number.isFinite(f) || f < 0)
    throw new DeploymentError(`${path}.message_frequency_per_round: must be a non-negative number`);
  return {
    rounds_per_epoch:
      o.rounds_per_epoch === undefined ? null : int(o.rounds_per_epoch, `${path}.rounds_per_epoch`, 1n),
    message_frequency_per_round: f,
    num_blend_layers: opt('num_blend_layers', blend.num_blend_layers, 1n),
    data_replication_factor: opt('data_replication_factor', blend.data_replication_factor),
    minimum_network_size: opt('minimum_network_size', blend.minimum_network_size, 1n),
    activity_threshold_sensitivity: opt(
      'activity_threshold_sensitivity',
      blend.activity_threshold_sensitivity,
    ),
  };
}

function frHex(v: unknown, path: string): Fr {
  const b = typeof v === 'string' ? hexToBytesOrUndefined(v, true) : undefined;
  if (b?.length !== 32)
    throw new DeploymentError(`${path}: expected a field element (64 hex characters, little-endian)`);
  const x = leBytesToBigint(b);
  if (x >= FR_MODULUS) throw new DeploymentError(`${path}: not a canonical field element`);
  return x;
}

function bytes32(v: unknown, path: string): Uint8Array {
  const b = typeof v === 'string' ? hexToBytesOrUndefined(v, true) : undefined;
  if (b?.length !== 32) throw new DeploymentError(`${path}: expected 32 bytes as 64 hex characters`);
  return b;
}

function list(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) throw new DeploymentError(`${path}: expected a list`);
  return v;
}

/** The genesis contents a deployment lists (`chain_id`, `genesis_time`, `epoch_nonce`, `notes`, `declarations`). */
function genesisFields(g: Obj, gp: string): GenesisSpec {
  const chainId = str(field(g, 'chain_id', gp), `${gp}.chain_id`);
  const chainIdBytes = new TextEncoder().encode(chainId).length;
  if (chainIdBytes < 1 || chainIdBytes > 255)
    throw new DeploymentError(`${gp}.chain_id: must be 1..255 bytes of UTF-8`);
  const notes = list(field(g, 'notes', gp), `${gp}.notes`).map((n, i) => {
    const np = `${gp}.notes[${i}]`;
    const o = obj(n, np);
    return {
      value: int(field(o, 'value', np), `${np}.value`, 1n),
      pk: frHex(field(o, 'pk', np), `${np}.pk`),
    };
  });
  if (notes.length === 0 || notes.length > 255)
    throw new DeploymentError(`${gp}.notes: 1..255 notes are required`);
  const declarations = list(g.declarations ?? [], `${gp}.declarations`).map((d, i) => {
    const dp = `${gp}.declarations[${i}]`;
    const o = obj(d, dp);
    const note_index = small(field(o, 'note_index', dp), `${dp}.note_index`, 0, notes.length - 1);
    const locators = list(field(o, 'locators', dp), `${dp}.locators`).map((l, j) => {
      try {
        return locatorFromString(str(l, `${dp}.locators[${j}]`));
      } catch (e) {
        throw new DeploymentError(`${dp}.locators[${j}]: ${(e as Error).message}`);
      }
    });
    return {
      locators,
      provider_id: bytes32(field(o, 'provider_id', dp), `${dp}.provider_id`),
      zk_id: frHex(field(o, 'zk_id', dp), `${dp}.zk_id`),
      note_index,
    };
  });
  const gt = field(g, 'genesis_time', gp);
  return {
    chain_id: chainId,
    genesis_time: gt === null ? null : small(gt, `${gp}.genesis_time`),
    epoch_nonce: frHex(field(g, 'epoch_nonce', gp), `${gp}.epoch_nonce`),
    notes,
    declarations,
    block: null,
  };
}

/**
 * `genesis.block`: the genesis block whole, in the reference's YAML form (src/ledger/genesis-block.ts),
 * checked as the reference checks a genesis block when it reads one (F: core/src/block/genesis.rs);
 * the chain id, time, nonce, notes and declarations are read from it and may not be listed beside it.
 */
function genesisFromBlock(g: Obj, gp: string): GenesisSpec {
  const beside = Object.keys(g).filter((k) => k !== 'block');
  if (beside.length > 0)
    throw new DeploymentError(
      `${gp}: ${beside.join(', ')} cannot be given beside block (the block holds them)`,
    );
  let block: Block;
  let contents: GenesisContents;
  try {
    block = decodeGenesisBlock(g.block);
    checkGenesis(block);
    contents = genesisContents(block);
  } catch (e) {
    if (e instanceof DecodeError) throw new DeploymentError(`${gp}.block: ${e.message}`);
    if (e instanceof LedgerError) throw new DeploymentError(`${gp}.block: ${e.meta.detail}`);
    throw e;
  }
  return { ...contents, block };
}

export function parseDeployment(text: string, source = 'deployment'): Deployment {
  let doc: unknown;
  try {
    // Warnings (an unknown tag) are not printed: the value they leave is refused below, by key.
    doc = parse(text, { intAsBigInt: true, customTags: proofTags, logLevel: 'error' });
  } catch (e) {
    throw new DeploymentError(`${source}: not valid YAML: ${(e as Error).message}`);
  }
  const root = obj(doc, source);
  const p = source;
  const c = obj(field(root, 'cryptarchia', p), `${p}.cryptarchia`);
  const cp = `${p}.cryptarchia`;
  const f = ratio(field(c, 'active_slot_coeff', cp), `${cp}.active_slot_coeff`);
  if (!(f.num > 0n && f.num < f.den))
    throw new DeploymentError(`${cp}.active_slot_coeff: must be between 0 and 1`);
  // F: utils/src/math.rs `NonNegativeRatio` holds a u32 numerator and denominator.
  if (f.den > 0xffffffffn)
    throw new DeploymentError(`${cp}.active_slot_coeff: numerator and denominator must fit in 32 bits`);
  // inferred: f below 1/1000 refused, the stake inference would divide by zero (docs/design/fidelity.md)
  if (Math.trunc(slotCoeffAsF64(f) * Number(STAKE_INFERENCE_PRECISION)) === 0)
    throw new DeploymentError(`${cp}.active_slot_coeff: must be at least 1/1000 (stake inference precision)`);
  // F: the learning rate is any non-negative number (`NonNegativeF64`).
  const lr = ratio(field(c, 'stake_inference_learning_rate', cp), `${cp}.stake_inference_learning_rate`);

  const s = obj(field(root, 'sdp', p), `${p}.sdp`);
  const powRoot = obj(field(root, 'pow', p), `${p}.pow`);
  const pw = obj(field(powRoot, 'reward', `${p}.pow`), `${p}.pow.reward`);
  // Optional: defaults are the reference's deployment templates
  // (F: deployment/ceremony/genesis/*/deployment-template.yaml, pow_config.blend).
  const bw = obj(powRoot.blend ?? {}, `${p}.pow.blend`);
  const bp = `${p}.pow.blend`;
  const opt = (key: string, dflt: bigint | number): unknown => (Object.hasOwn(bw, key) ? bw[key] : dflt);
  const pp = `${p}.pow.reward`;
  const emaFactor = int(field(pw, 'ema_smoothing_factor', pp), `${pp}.ema_smoothing_factor`);
  const emaPrecision = int(field(pw, 'ema_smoothing_precision', pp), `${pp}.ema_smoothing_precision`, 1n);
  // F: ledger/src/mantle/pow/difficulty.rs refuses a factor above the precision (negative weight).
  if (emaFactor > emaPrecision)
    throw new DeploymentError(`${pp}.ema_smoothing_factor: must not exceed ema_smoothing_precision`);
  const g = obj(field(root, 'genesis', p), `${p}.genesis`);
  const gp = `${p}.genesis`;
  const genesis = g.block === undefined ? genesisFields(g, gp) : genesisFromBlock(g, gp);
  const faucet = root.faucet_pk ?? null;

  const name = str(field(root, 'name', p), `${p}.name`);
  const blend = blendSection(root, name, p);
  const slotMs = small(
    field(obj(field(root, 'time', p), `${p}.time`), 'slot_duration_ms', `${p}.time`),
    `${p}.time.slot_duration_ms`,
    1,
  );
  const roundsPerSlot = blend.rounds_per_slot ?? 1;
  if (slotMs % roundsPerSlot !== 0)
    throw new DeploymentError(
      `${p}.blend.core.scheduler.rounds_per_slot: ${roundsPerSlot} rounds do not split a slot of ${slotMs} ms into whole milliseconds`,
    );
  const deployment: Deployment = {
    name,
    test: root.test === undefined ? false : bool(root.test, `${p}.test`),
    circuits: circuitKeys(root.circuits, `${p}.circuits`),
    slot_duration_ms: slotMs,
    mempool: mempoolSection(root.mempool, `${p}.mempool`),
    network: networkNames(root, name, p),
    blend,
    ledger: {
      consensus: {
        security_param: small(field(c, 'security_param', cp), `${cp}.security_param`, 1),
        active_slot_coeff: f,
        epoch_stake_distribution_stabilization: small(
          field(c, 'epoch_stake_distribution_stabilization', cp),
          `${cp}.epoch_stake_distribution_stabilization`,
          1,
          255, // F: consensus/cryptarchia-engine/src/time.rs `EpochConfig`, NonZero<u8>
        ),
        epoch_period_nonce_buffer: small(
          field(c, 'epoch_period_nonce_buffer', cp),
          `${cp}.epoch_period_nonce_buffer`,
          1,
          255, // F: consensus/cryptarchia-engine/src/time.rs `EpochConfig`, NonZero<u8>
        ),
        epoch_period_nonce_stabilization: small(
          field(c, 'epoch_period_nonce_stabilization', cp),
          `${cp}.epoch_period_nonce_stabilization`,
          1,
          255, // F: consensus/cryptarchia-engine/src/time.rs `EpochConfig`, NonZero<u8>
        ),
        stake_inference_learning_rate: lr,
        uncle_reference_window_in_blocks: small(
          field(c, 'uncle_reference_window_in_blocks', cp),
          `${cp}.uncle_reference_window_in_blocks`,
          1,
        ),
      },
      sdp: {
        min_stake: int(field(s, 'min_stake', `${p}.sdp`), `${p}.sdp.min_stake`),
        // F: core/src/sdp/mod.rs `InactivityPeriod` (at least SNAPSHOT_FINALIZATION_DELAY)
        inactivity_period: small(
          field(s, 'inactivity_period', `${p}.sdp`),
          `${p}.sdp.inactivity_period`,
          SNAPSHOT_FINALIZATION_DELAY,
        ),
        blend_rewards: blendRewards(s.blend_rewards, `${p}.sdp.blend_rewards`, blend),
      },
      pow: {
        reward_pool_genesis: int(field(pw, 'reward_pool_genesis', pp), `${pp}.reward_pool_genesis`),
        epoch_reward_genesis: int(field(pw, 'epoch_reward_genesis', pp), `${pp}.epoch_reward_genesis`),
        ...initialTarget(pw, pp),
        ema_smoothing_factor: emaFactor,
        ema_smoothing_precision: emaPrecision,
        target_claims_per_block: int(
          field(pw, 'target_claims_per_block', pp),
          `${pp}.target_claims_per_block`,
          1n,
        ),
        rate_num: int(field(pw, 'rate_num', pp), `${pp}.rate_num`),
        rate_den: int(field(pw, 'rate_den', pp), `${pp}.rate_den`, 1n),
        pow_share: ratio(field(pw, 'pow_share', pp), `${pp}.pow_share`),
        slot_window: small(field(pw, 'slot_window', pp), `${pp}.slot_window`, 1),
      },
      blend_pow: {
        base_difficulty: small(opt('base_difficulty', 19), `${bp}.base_difficulty`, 1, MAX_MODULUS_SHIFT),
        target_transactions_per_block: int(
          opt('target_transactions_per_block', 512),
          `${bp}.target_transactions_per_block`,
          1n,
        ),
        max_step: int(opt('max_step', 2), `${bp}.max_step`, 1n),
        damping_num: small(opt('damping_num', 1), `${bp}.damping_num`, 1),
        damping_den_offset: small(opt('damping_den_offset', 1), `${bp}.damping_den_offset`),
      },
      faucet_pk: faucet === null ? null : frHex(faucet, `${p}.faucet_pk`),
    },
    genesis,
  };
  return withRoundsPerEpoch(deployment, roundsPerSlot);
}

/**
 * The Blend rewards' rounds per epoch of a deployment that splits its slots into rounds (unless given):
 * the epoch's slots times the rounds of a slot, as the Blend service counts them (src/blend/quota.ts).
 */
function withRoundsPerEpoch(d: Deployment, roundsPerSlot: number): Deployment {
  const rewards = d.ledger.sdp.blend_rewards;
  if (roundsPerSlot === 1 || rewards.rounds_per_epoch !== null) return d;
  const rounds = epochSchedule(d.ledger.consensus).epoch_length * BigInt(roundsPerSlot);
  const sdp = { ...d.ledger.sdp, blend_rewards: { ...rewards, rounds_per_epoch: rounds } };
  return { ...d, ledger: { ...d.ledger, sdp } };
}

/**
 * The genesis reward target: `initial_difficulty` n (p / 2^n) or `initial_target`, the exact value
 * (below p), one of the two.
 */
function initialTarget(pw: Obj, pp: string): { initial_difficulty: number; initial_target?: bigint } {
  if (pw.initial_target === undefined)
    return {
      initial_difficulty: small(field(pw, 'initial_difficulty', pp), `${pp}.initial_difficulty`, 0, 253),
    };
  if (pw.initial_difficulty !== undefined)
    throw new DeploymentError(`${pp}: give initial_difficulty or initial_target, not both`);
  return {
    initial_difficulty: 0,
    initial_target: int(pw.initial_target, `${pp}.initial_target`, 0n, FR_MODULUS - 1n),
  };
}

/** `circuits`: `own` (the default) or `reference`. */
function circuitKeys(v: unknown, path: string): CircuitKeys {
  if (v === undefined || v === null) return 'own';
  if (v === 'own' || v === 'reference') return v;
  throw new DeploymentError(`${path}: expected "reference" or "own", got ${JSON.stringify(String(v))}`);
}

/**
 * A node must never run a real network on a proof backend that anyone can forge: only deployments
 * marked `test: true` may use an insecure one.
 */
export function assertProofSystemAllowed(
  d: Deployment,
  proofs: { readonly name: string; readonly secure: boolean },
): void {
  if (!proofs.secure && !d.test) {
    throw new DeploymentError(
      `deployment ${d.name} is not a test deployment and cannot run with the insecure proof backend ${proofs.name}`,
    );
  }
}
