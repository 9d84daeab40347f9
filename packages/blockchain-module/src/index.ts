/**
 * The `blockchain_module` of the control tool (operator.md §2): its factory (the module file's default
 * export) and its method table, in the reference module's 0.2.4 names and argument orders (§2.2).
 * Every method answers a `StdLogosResult` (`does_state_exist` a plain bool); a bad argument, a call
 * without a running node or a failure of the node answers `success: false` with the message.
 */
import { resolve } from 'node:path';
import {
  migrateUserConfig,
  migrateUserConfig012,
  participate,
  updateUserConfig,
} from '@logos-ts/node/config-file/config-calls';
import { addKey, generateKey, peerIdOfConfig, removeKey } from '@logos-ts/node/config-file/keys';
import type { Json } from '@logos-ts/shared/json';
import {
  guarded,
  type LogosModule,
  type ModuleContext,
  type ModuleFactory,
  type ModuleMethod,
  ok,
  type StdLogosResult,
} from '@logos-ts/shared/module-api';
import { ArgumentError, text } from '@logos-ts/shared/module-args';
import { BlockchainModule, NOT_RUNNING } from './blockchain-module.ts';

export const MODULE_NAME = 'blockchain_module';
/** The reference module version whose calls this module answers. */
export const MODULE_VERSION = '0.2.4';

type Method = (...args: Json[]) => Promise<StdLogosResult | boolean> | StdLogosResult | boolean;

export function createBlockchainModule(ctx: ModuleContext): LogosModule {
  const m = new BlockchainModule(ctx);
  const methods: Record<string, Method> = {
    generate_user_config: (a) => m.generate_user_config(a ?? null),
    start: (path, deployment) => m.start(path ?? '', deployment ?? ''),
    stop: () => m.stop(),
    update_user_config: (cfg, keystore) => {
      updateUserConfig(ctx.cwd, cfg ?? '', keystore ?? '');
      return ok();
    },
    migrate_user_config: (out, keystore) => {
      migrateUserConfig(ctx.cwd, out ?? '', keystore ?? '');
      return ok();
    },
    migrate_user_config_0_1_2: (next, old, keystore) => {
      migrateUserConfig012(ctx.cwd, next ?? '', old ?? '', keystore ?? '');
      return ok();
    },
    participate: (cfg, keystore, outDir, externalIp) => {
      participate(ctx.cwd, cfg ?? '', keystore ?? '', outDir ?? '', externalIp ?? '');
      return ok();
    },
    get_cryptarchia_info: () => m.get_cryptarchia_info(),
    get_peer_id: async (cfg) => ok(await peerIdOfConfig(resolvePath(ctx, cfg))),
    wallet_get_balance: (addr) => m.wallet_get_balance(addr ?? null),
    wallet_get_known_addresses: () => m.wallet_get_known_addresses(),
    wallet_get_notes: (addr, tip) => m.wallet_get_notes(addr ?? null, tip ?? ''),
    wallet_transfer_funds: (change, senders, recipient, amount, tip) =>
      m.wallet_transfer_funds(change ?? null, senders ?? null, recipient ?? null, amount ?? null, tip ?? ''),
    leader_claim: () => m.leader_claim(),
    wallet_get_claimable_vouchers: () => m.wallet_get_claimable_vouchers(),
    blend_join_as_core_node: (locator, note) => m.blend_join_as_core_node(locator ?? '', note ?? null),
    channel_deposit: (channel, funding, amount, metadata, tip) =>
      m.channel_deposit(channel ?? null, funding ?? null, amount ?? null, metadata ?? '', tip ?? ''),
    channel_deposit_with_notes: (channel, notes, metadata, change, funding, fee, tip) =>
      m.channel_deposit_with_notes(
        channel ?? null,
        notes ?? null,
        metadata ?? '',
        change ?? null,
        funding ?? null,
        fee ?? null,
        tip ?? '',
      ),
    get_block: (id) => m.get_block(id ?? null),
    get_blocks: (from, to) => m.get_blocks(from ?? null, to ?? null),
    get_transaction: (hash) => m.get_transaction(hash ?? null),
    generate_key: (cfg, keystore, type, title) =>
      ok(generateKey(ctx.cwd, cfg ?? '', keystore ?? '', type ?? '', title ?? '')),
    add_key: (cfg, keystore, type, keyHex, title) =>
      ok(addKey(ctx.cwd, cfg ?? '', keystore ?? '', type ?? '', keyHex ?? '', title ?? '')),
    remove_key: (cfg, keystore, title) => {
      removeKey(ctx.cwd, cfg ?? '', keystore ?? '', title ?? '');
      return ok();
    },
    does_state_exist: () => m.does_state_exist(),
    purge_state: () => m.purge_state(),
  };
  const guardedMethods: Record<string, ModuleMethod> = {};
  for (const [name, f] of Object.entries(methods)) guardedMethods[name] = guarded(f);
  return {
    name: MODULE_NAME,
    version: MODULE_VERSION,
    dependencies: [],
    methods: guardedMethods,
    events: ['newBlock'],
    close: () => m.close(),
  };
}

function resolvePath(ctx: ModuleContext, v: Json | undefined): string {
  const p = text(v);
  if (p === '') throw new ArgumentError('Config path must not be empty.');
  return resolve(ctx.cwd, p);
}

export { NOT_RUNNING };

const factory: ModuleFactory = createBlockchainModule;
export default factory;
