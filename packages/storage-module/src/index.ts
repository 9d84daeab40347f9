/**
 * The `storage_module` of the control tool (operator.md §3, version 2.1.2): its factory (the module
 * file's default export) and its method table, in the reference module's names and argument orders
 * (§3.2). `init` and `start` answer a plain bool (`"result":true`) as the reference does; every
 * other call a `StdLogosResult`. A bad argument, a call before `init` or `start`, or a failure
 * answers `success: false` with the message and changes nothing.
 */
import type { Json } from '@logos-ts/shared/json';
import {
  guarded,
  type LogosModule,
  type ModuleContext,
  type ModuleFactory,
  type ModuleMethod,
  type StdLogosResult,
} from '@logos-ts/shared/module-api';
import { tooManyArguments } from './args.ts';
import { StorageModule } from './storage-module.ts';

export const MODULE_NAME = 'storage_module';
export const MODULE_VERSION = '2.1.2';

export const EVENTS = [
  'storageStart',
  'storageStop',
  'storageConnect',
  'storageUploadProgress',
  'storageUploadDone',
  'storageDownloadProgress',
  'storageDownloadDone',
] as const;

type Method = (...args: Json[]) => Promise<StdLogosResult | boolean> | StdLogosResult | boolean;

export function createStorageModule(ctx: ModuleContext): LogosModule {
  const m = new StorageModule(ctx);
  /** Each method with the number of arguments it takes. */
  const table: Record<string, [number, Method]> = {
    init: [1, (cfg) => m.init(cfg)],
    start: [0, () => m.start()],
    stop: [0, () => m.stop()],
    destroy: [0, () => m.destroy()],
    version: [0, () => m.version()],
    dataDir: [0, () => m.dataDir()],
    peerId: [0, () => m.peerId()],
    spr: [0, () => m.spr()],
    debug: [0, () => m.debug()],
    updateLogLevel: [1, (l) => m.updateLogLevel(l)],
    connect: [2, (p, a) => m.connect(p, a)],
    togglePrivateQueries: [1, (e) => m.togglePrivateQueries(e)],
    uploadUrl: [2, (p, c) => m.uploadUrl(p, c)],
    uploadInit: [2, (f, c) => m.uploadInit(f, c)],
    uploadChunk: [2, (s, c) => m.uploadChunk(s, c)],
    uploadFinalize: [1, (s) => m.uploadFinalize(s)],
    uploadCancel: [1, (s) => m.uploadCancel(s)],
    downloadToUrl: [4, (c, p, l, s) => m.downloadToUrl(c, p, l, s)],
    downloadChunks: [3, (c, l, s) => m.downloadChunks(c, l, s)],
    downloadCancel: [1, (s) => m.downloadCancel(s)],
    exists: [1, (c) => m.exists(c)],
    fetch: [1, (c) => m.fetch(c)],
    remove: [1, (c) => m.remove(c)],
    space: [0, () => m.space()],
    manifests: [0, () => m.manifests()],
    downloadManifest: [1, (c) => m.downloadManifest(c)],
    importFiles: [1, (d) => m.importFiles(d)],
  };
  const methods: Record<string, ModuleMethod> = {};
  for (const [name, [count, f]] of Object.entries(table))
    methods[name] = guarded(f, count, (max, got) => tooManyArguments(name, max, got));
  return {
    name: MODULE_NAME,
    version: MODULE_VERSION,
    dependencies: [],
    methods,
    events: [...EVENTS],
    close: () => m.close(),
  };
}

const factory: ModuleFactory = createStorageModule;
export default factory;
