/**
 * The blockchain module (`blockchain_module` 0.2.4, operator.md §2): runs this project's node in the
 * module host's process (`start`, `stop`, as `logos-node start` does) and answers the reference
 * module's calls with its argument order, error texts and value shapes (§2.2): JSON-string values for
 * `get_cryptarchia_info`, `wallet_get_notes`, `wallet_get_claimable_vouchers`, `get_block(s)` and
 * `get_transaction`, a JSON array for `wallet_get_known_addresses`, u64 amounts as decimal strings.
 * Chain reads come from the node's chain service; wallet, leader and Blend calls go through the node's
 * own HTTP API on its bound address (the same handlers, so the same shapes and failure texts). Each new
 * tip is emitted as `newBlock` `{"block":"<block JSON>"}`.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { blockToApiJson } from '@logos-ts/node/block/block';
import type { ProcessedBlock } from '@logos-ts/node/chain/index';
import { bytesToHex, hexToBytes } from '@logos-ts/node/codec/hex';
import { generateUserConfig } from '@logos-ts/node/config-file/user-config';
import type { UserConfig } from '@logos-ts/node/node/config';
import { loadDeployment, readConfigFile } from '@logos-ts/node/node/load';
import { LogosNode } from '@logos-ts/node/node/node';
import { isJsonObject, type Json, stringifyJson } from '@logos-ts/shared/json';
import { fail, type ModuleContext, ok, type StdLogosResult } from '@logos-ts/shared/module-api';
import {
  ArgumentError,
  hex64,
  keyList,
  optionalTip,
  positiveAmount,
  slot,
  text,
} from '@logos-ts/shared/module-args';
import { BlockchainModuleError, NodeCallError } from './errors.ts';
import { apiBaseUrl, NodeApi } from './node-api.ts';

export const NOT_RUNNING = 'The node is not running.';
export const ALREADY_RUNNING = 'The node is already running.';
export const NO_CONFIG_PATH = 'Config path was not specified and LB_CONFIG_PATH is not set.';
/**
 * The deployment of `start(path, "")`: the reference's built-in one, its public testnet (the module
 * hands the bindings no deployment path and they take `DeploymentSettings::default()`, the testnet
 * settings; F: c-bindings/src/api/lifecycle.rs `get_deployment_config`, nodes/node/binary/src/config/
 * deployment/mod.rs).
 */
export const DEFAULT_DEPLOYMENT = 'testnet';

interface Running {
  readonly node: LogosNode;
  readonly api: NodeApi;
  readonly config: UserConfig;
  readonly onBlock: (pb: ProcessedBlock) => void;
}

export class BlockchainModule {
  private running: Running | undefined;
  /** A `start` under way: a second `start` is refused as if the node ran, `close` waits for it. */
  private starting: Promise<void> | undefined;
  /** The state folder of the running or last started config (before any: `./state`, a generated config's). */
  private stateDir: string;

  constructor(private readonly ctx: ModuleContext) {
    this.stateDir = resolve(ctx.cwd, 'state');
  }

  generate_user_config(jsonArgs: Json): StdLogosResult {
    return ok(generateUserConfig(jsonArgs, this.ctx.cwd, this.ctx.dataDir));
  }

  async start(configPath: Json, deployment: Json): Promise<StdLogosResult> {
    if (this.running !== undefined || this.starting !== undefined) return fail(ALREADY_RUNNING);
    let path = text(configPath);
    if (path === '') {
      const env = process.env.LB_CONFIG_PATH;
      if (env === undefined || env === '') return fail(NO_CONFIG_PATH);
      path = env;
    }
    path = resolve(this.ctx.cwd, path);
    const dep = text(deployment);
    const config = readConfigFile(path);
    const dp = loadDeployment(deploymentArgument(dep, this.ctx.cwd));
    const baseDir = dirname(path);
    const log = this.ctx.logger;
    // A fatal error (e.g. a full disk) may come while the node is still starting: it stops once started.
    let fatal: Error | undefined;
    const starting = LogosNode.start({
      deployment: dp,
      config,
      baseDir,
      configFile: path,
      logger: log,
      onFatal: (e) => {
        log.error({ err: e.message }, 'fatal node error; the node stops');
        fatal = e;
        if (this.running !== undefined)
          this.stop().catch((err: unknown) =>
            log.error({ err: (err as Error).message }, 'stopping after the fatal error failed'),
          );
      },
    });
    this.starting = starting.then(
      () => {},
      () => {},
    );
    let started: LogosNode;
    try {
      started = await starting;
    } finally {
      this.starting = undefined;
    }
    if (fatal !== undefined) {
      await started.stop();
      return fail(fatal.message);
    }
    const listening = started.api.listening;
    if (listening === undefined) {
      await started.stop();
      return fail('The node API is not listening.');
    }
    const onBlock = (pb: ProcessedBlock) => {
      if (pb.applied.length === 0) return;
      this.ctx.emit('newBlock', { block: stringifyJson(blockToApiJson(pb.block, pb.id)) });
    };
    started.chain.on('block', onBlock);
    this.stateDir = resolve(baseDir, config.state.base_folder);
    this.running = {
      node: started,
      api: new NodeApi(apiBaseUrl(listening)),
      config,
      onBlock,
    };
    log.info({ config: path, deployment: dp.name, api: listening }, 'node started');
    return ok();
  }

  async stop(): Promise<StdLogosResult> {
    const r = this.running;
    if (r === undefined) return fail(NOT_RUNNING);
    this.running = undefined;
    r.node.chain.off('block', r.onBlock);
    await r.node.stop();
    this.ctx.logger.info('node stopped');
    return ok();
  }

  /** The running node, or the module's error. */
  private need(): Running {
    if (this.running === undefined) throw new ArgumentError(NOT_RUNNING);
    return this.running;
  }

  get_cryptarchia_info(): StdLogosResult {
    const { node } = this.need();
    const tip = node.chain.tip();
    // Sorted keys, as the reference module's nlohmann JSON writes them (operator.md §1.5).
    return ok(
      stringifyJson({
        height: BigInt(tip.height),
        lib: bytesToHex(node.chain.lib().id),
        mode: node.chain.consensusState,
        slot: tip.slot,
        tip: bytesToHex(tip.id),
      }),
    );
  }

  /**
   * A key's `{tip, balance, notes: {id: value}}` at `tip` (default the node's tip), or undefined when
   * the node holds no notes of it there (its 404).
   */
  private async balance(
    api: NodeApi,
    pk: string,
    tip?: string,
  ): Promise<{ tip: Json; balance: Json; notes: Record<string, Json> } | undefined> {
    let j: Json;
    try {
      j = await api.json('GET', `/wallet/${pk}/balance${tip !== undefined ? `?tip=${tip}` : ''}`);
    } catch (e) {
      if (e instanceof NodeCallError && e.status === 404) return undefined;
      throw e;
    }
    if (!isJsonObject(j) || !isJsonObject(j.notes))
      throw new BlockchainModuleError('BLOCKCHAIN_MODULE_UNEXPECTED_ANSWER', 'unexpected wallet answer');
    return { tip: j.tip ?? null, balance: j.balance ?? null, notes: j.notes };
  }

  async wallet_get_balance(address: Json): Promise<StdLogosResult> {
    const { api } = this.need();
    const pk = hex64(address, 'Address must be 64 hex characters (32 bytes).');
    const b = await this.balance(api, pk);
    return b === undefined ? fail('Unknown wallet address.') : ok(String(b.balance));
  }

  wallet_get_known_addresses(): StdLogosResult {
    const { config } = this.need();
    return ok([...new Set(Object.values(config.wallet.known_keys))]);
  }

  async wallet_get_notes(address: Json, tipHex: Json): Promise<StdLogosResult> {
    const { api, node } = this.need();
    const pk = hex64(address, 'Invalid wallet address (64 hex characters required).');
    const tip = optionalTip(tipHex);
    if (tip !== undefined && !node.chain.has(hexToBytes(tip))) return fail(`Unknown block ${tip}.`);
    const b = await this.balance(api, pk, tip);
    // inferred: a key without notes has none, at the asked block or the tip (docs/design/fidelity.md)
    if (b === undefined) return ok(stringifyJson({ notes: [], tip: tip ?? bytesToHex(node.chain.tip().id) }));
    const notes = Object.entries(b.notes).map(([id, value]) => ({ id, value: String(value) }));
    return ok(stringifyJson({ notes, tip: b.tip }));
  }

  async wallet_transfer_funds(
    changePk: Json,
    senders: Json,
    recipient: Json,
    amount: Json,
    tipHex: Json,
  ): Promise<StdLogosResult> {
    const { api } = this.need();
    const change = hex64(changePk, 'Invalid change public key (64 hex characters required).');
    const funding = keyList(senders, 'Invalid sender addresses (64 hex characters each required).');
    const to = hex64(recipient, 'Invalid recipient address (64 hex characters required).');
    const value = positiveAmount(amount);
    const tip = optionalTip(tipHex);
    const j = await api.json('POST', '/wallet/transactions/transfer-funds', {
      ...(tip !== undefined ? { tip } : {}),
      change_public_key: change,
      funding_public_keys: funding,
      recipient_public_key: to,
      amount: value,
    });
    return ok(isJsonObject(j) ? (j.hash ?? null) : null);
  }

  async leader_claim(): Promise<StdLogosResult> {
    const { api } = this.need();
    const j = await api.json('POST', '/leader/claim');
    return ok(isJsonObject(j) ? (j.tx_hash ?? null) : null);
  }

  async wallet_get_claimable_vouchers(): Promise<StdLogosResult> {
    const { api } = this.need();
    const j = await api.json('GET', '/leader/claim/vouchers');
    if (!isJsonObject(j))
      throw new BlockchainModuleError('BLOCKCHAIN_MODULE_UNEXPECTED_ANSWER', 'unexpected leader answer');
    return ok(stringifyJson({ tip: j.tip ?? null, vouchers: j.vouchers ?? [] }));
  }

  async blend_join_as_core_node(locator: Json, lockedNoteId: Json): Promise<StdLogosResult> {
    const { api } = this.need();
    const loc = text(locator).trim();
    if (loc === '') throw new ArgumentError('Invalid locator (must not be empty).');
    const note = hex64(lockedNoteId, 'Invalid locked_note_id_hex (64 hex characters required).');
    const j = await api.json('POST', '/blend/join', { locator: loc, service_note_id: note });
    return ok(isJsonObject(j) ? (j.declaration_id ?? null) : null);
  }

  /**
   * `channel_deposit_with_notes(channel_id, [note_ids], metadata_hex, change_pk, [funding_pks],
   * max_tx_fee, tip)`: deposits these notes into the channel, the fee funded by `funding_pks`.
   */
  async channel_deposit_with_notes(
    channelId: Json,
    noteIds: Json,
    metadataHex: Json,
    changePk: Json,
    fundingPks: Json,
    maxTxFee: Json,
    tipHex: Json,
  ): Promise<StdLogosResult> {
    const { api } = this.need();
    const channel = hex64(channelId, 'Invalid channel_id (64 hex characters required).');
    const inputs = keyList(noteIds, 'Invalid note ids (64 hex characters each required).');
    const metadata = metadataBytes(metadataHex);
    const change = hex64(changePk, 'Invalid change public key (64 hex characters required).');
    const funding = keyList(fundingPks, 'Invalid funding public keys (64 hex characters each required).');
    const fee = slot(maxTxFee, 'max_tx_fee');
    const tip = optionalTip(tipHex);
    const j = await api.json('POST', '/channel/deposit', {
      ...(tip !== undefined ? { tip } : {}),
      deposit: { channel_id: channel, inputs, metadata },
      change_public_key: change,
      funding_public_keys: funding,
      max_tx_fee: fee,
    });
    return ok(isJsonObject(j) ? (j.hash ?? null) : null);
  }

  /**
   * `channel_deposit(channel_id, funding_pk, amount, metadata_hex, tip)`: deposits one note of
   * `funding_pk` worth exactly `amount` (a deposit moves whole notes), the fee funded by the same key.
   */
  async channel_deposit(
    channelId: Json,
    fundingPk: Json,
    amount: Json,
    metadataHex: Json,
    tipHex: Json,
  ): Promise<StdLogosResult> {
    const { api } = this.need();
    const pk = hex64(fundingPk, 'Invalid funding public key (64 hex characters required).');
    const value = positiveAmount(amount);
    const tip = optionalTip(tipHex);
    const b = await this.balance(api, pk, tip);
    if (b === undefined) return fail('Unknown wallet address.');
    const note = Object.entries(b.notes).find(([, v]) => BigInt(v as number | bigint) === value)?.[0];
    if (note === undefined)
      return fail(`No note of ${value} held by the funding key; use channel_deposit_with_notes.`);
    // inferred: one whole note of the asked value; the fee is capped by what the key holds (docs/design/fidelity.md)
    return this.channel_deposit_with_notes(channelId, [note], metadataHex, pk, [pk], U64_MAX, tipHex);
  }

  async get_block(headerId: Json): Promise<StdLogosResult> {
    const { api } = this.need();
    const id = hex64(headerId, 'Invalid header id (64 hex characters required).');
    return ok(await api.text('GET', `/cryptarchia/blocks/${id}`));
  }

  async get_blocks(fromSlot: Json, toSlot: Json): Promise<StdLogosResult> {
    const { api } = this.need();
    const from = slot(fromSlot, 'from_slot');
    const to = slot(toSlot, 'to_slot');
    return ok(await api.text('GET', `/cryptarchia/blocks?slot_from=${from}&slot_to=${to}`));
  }

  async get_transaction(txHash: Json): Promise<StdLogosResult> {
    const { api } = this.need();
    const h = hex64(txHash, 'Invalid transaction hash (64 hex characters required).');
    return ok(await api.text('GET', `/cryptarchia/transaction/${h}`));
  }

  /** Whether the node's state folder holds anything (the last started config's, else `./state`). */
  does_state_exist(): boolean {
    // inferred: which folder is the state's (docs/design/fidelity.md)
    return existsSync(this.stateDir) && readdirSync(this.stateDir).length > 0;
  }

  purge_state(): StdLogosResult {
    if (this.running !== undefined) return fail('The node is running. Stop it before purging its state.');
    rmSync(this.stateDir, { recursive: true, force: true });
    return ok();
  }

  async close(): Promise<void> {
    if (this.starting !== undefined) await this.starting.catch(() => {});
    if (this.running !== undefined) await this.stop();
  }
}

const U64_MAX = (2n ** 64n - 1n).toString();

/** Deposit metadata: hex text (`""` for none) as the array of its bytes. */
function metadataBytes(v: Json): number[] {
  const t = text(v).trim().replace(/^0x/, '');
  if (t.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(t))
    throw new ArgumentError('Invalid metadata (hex characters, an even number of them, required).');
  return [...hexToBytes(t)];
}

/**
 * What `start`'s deployment argument names: `""` the default (the testnet), a name this node ships
 * (`devnet`, `reference`, `testnet`) or a file, relative to `cwd`.
 */
export function deploymentArgument(dep: string, cwd: string): string {
  if (dep === '') return DEFAULT_DEPLOYMENT;
  return ['devnet', 'reference', 'testnet', 'mainnet'].includes(dep) ? dep : resolve(cwd, dep);
}
