/**
 * The storage module's calls (operator.md §3.2, the 2.1-era `storage_module_plugin.h`): lifecycle
 * (`init` once, `start`/`stop` any number of times, `destroy`), identity, uploads (from a file or in
 * chunks) and downloads (to a file or as base64 chunk events) with their sessions and events, and the
 * repository calls. Values and event payloads have the reference's shapes; errors carry the texts of
 * libstorage where it has one (`Storage context not initialized.`, `File not found: …`,
 * `Failed to finalize the upload session: …`, `Failed to start download.`, …).
 * inferred: calls that need the running node before `start` answer "The storage node is not started.".
 */

import { randomBytes } from 'node:crypto';
import { createReadStream, mkdirSync, readdirSync, statSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { PrivateKey } from '@libp2p/interface';
import { peerIdFromPrivateKey, peerIdFromString } from '@libp2p/peer-id';
import type { Json } from '@logos-ts/shared/json';
import { fail, type ModuleContext, ok, type StdLogosResult } from '@logos-ts/shared/module-api';
import { ArgumentError } from '@logos-ts/shared/module-args';
import type { Logger } from 'pino';
import { boolArg, chunkSizeArg, cidArg, nonEmptyArg, stringListArg, textArg } from './args.ts';
import { BlockStore } from './blockstore.ts';
import { cidText } from './cid.ts';
import { LOG_LEVELS, parseConfig, type StorageConfig } from './config.ts';
import { DatasetWriter, DEFAULT_BLOCK_SIZE, Engine, refuseTreeCid } from './engine.ts';
import { StorageModuleError } from './errors.ts';
import type { Manifest } from './manifest.ts';
import { mimetypeOf } from './mime.ts';
import { FETCH_TIMEOUT_MS, StorageNetwork } from './node.ts';
import { setupKey } from './node-key.ts';

export const NOT_INITIALIZED = 'Storage context not initialized.';
export const NOT_STARTED = 'The storage node is not started.';
/** The libstorage version this module reports (`version()`). */
// inferred: the pinned module's libstorage version string is not in the sources read
export const LIBSTORAGE_VERSION = 'v0.2.1';

/** Throttles progress events to one per percent of `total` (every event when `total` is 0). */
class Progress {
  private done = 0;
  private pending = 0;
  private last = -1;
  constructor(
    private readonly total: number,
    private readonly emit: (bytes: number) => void,
  ) {}
  add(bytes: number): void {
    this.done += bytes;
    this.pending += bytes;
    if (this.total > 0) {
      const pct = Math.floor((this.done * 100) / this.total);
      if (pct <= this.last) return;
      this.last = pct;
    }
    this.emit(this.pending);
    this.pending = 0;
  }
}

interface Upload {
  readonly writer: DatasetWriter;
  cancelled: boolean;
  /** Pushes in order. */
  chain: Promise<void>;
}

interface Running {
  readonly store: BlockStore;
  readonly net: StorageNetwork;
  readonly engine: Engine;
  /** The block expiry rounds. */
  readonly maintenance: NodeJS.Timeout;
  /** Aborted on stop: ends the background fetches. */
  readonly stopping: AbortController;
}

export class StorageModule {
  private cfg: StorageConfig | undefined;
  private key: PrivateKey | undefined;
  private log: Logger;
  private running: Running | undefined;
  private starting: Promise<void> | undefined;
  private privateQueries = false;
  private nextSession = 0;
  private readonly uploads = new Map<string, Upload>();
  private readonly downloads = new Map<string, AbortController>();
  /** Background work (uploads, downloads, fetches) to wait for on stop. */
  private readonly tasks = new Set<Promise<unknown>>();

  constructor(private readonly ctx: ModuleContext) {
    this.log = ctx.logger;
  }

  private track(p: Promise<unknown>): void {
    const t = p.catch(() => {});
    this.tasks.add(t);
    void t.finally(() => this.tasks.delete(t));
  }

  private config(): StorageConfig {
    if (this.cfg === undefined) throw new ArgumentError(NOT_INITIALIZED);
    return this.cfg;
  }

  private node(): Running {
    this.config();
    if (this.running === undefined) throw new ArgumentError(NOT_STARTED);
    return this.running;
  }

  private resolvePath(p: string): string {
    return resolve(this.ctx.cwd, p);
  }

  // ---- lifecycle

  async init(cfgText: Json | undefined): Promise<StdLogosResult | boolean> {
    if (this.cfg !== undefined)
      return fail('The storage context is already initialized (init is called once).');
    const text = cfgText === undefined || cfgText === null ? '' : textArg(cfgText, 'cfg');
    const cfg = await parseConfig(text, this.ctx.cwd);
    mkdirSync(cfg.dataDir, { recursive: true, mode: 0o700 });
    this.key = await setupKey(cfg.netPrivkey);
    this.cfg = cfg;
    this.log = this.ctx.logger.child({}, { level: pinoLevel(cfg.logLevel) });
    this.log.info(
      { dataDir: cfg.dataDir, peerId: peerIdFromPrivateKey(this.key).toString() },
      'storage context initialized',
    );
    return true;
  }

  start(): StdLogosResult | boolean {
    const cfg = this.config();
    const key = this.key!;
    if (this.running !== undefined || this.starting !== undefined)
      return fail('The storage node is already started.');
    this.starting = (async () => {
      try {
        const store = new BlockStore(join(cfg.dataDir, 'repo'), cfg.storageQuota);
        const net = await StorageNetwork.start(cfg, key, store, this.log);
        const maintenance = setInterval(
          () => {
            store
              .expire(cfg.blockTtlMs, cfg.blockMaintenanceBatch)
              .then((n) => n > 0 && this.log.info({ deleted: n }, 'expired blocks deleted'))
              .catch((e: Error) => this.log.warn({ err: e.message }, 'block maintenance failed'));
          },
          Math.min(cfg.blockMaintenanceIntervalMs, 2 ** 31 - 1),
        ); // a longer delay would fire at once
        maintenance.unref();
        this.running = {
          store,
          net,
          engine: new Engine(store, net),
          maintenance,
          stopping: new AbortController(),
        };
        this.log.info({ addrs: net.addrs().map(String) }, 'storage node started');
        this.ctx.emit('storageStart', { success: true, message: '' });
      } catch (e) {
        this.log.error({ err: (e as Error).message }, 'storage node failed to start');
        this.ctx.emit('storageStart', { success: false, message: (e as Error).message });
      } finally {
        this.starting = undefined;
      }
    })();
    return true;
  }

  async stop(): Promise<StdLogosResult> {
    this.config();
    if (this.starting !== undefined) await this.starting;
    const r = this.running;
    if (r === undefined) return fail(NOT_STARTED);
    this.running = undefined;
    this.track(
      (async () => {
        try {
          await this.halt(r);
          this.ctx.emit('storageStop', { success: true, message: '' });
        } catch (e) {
          this.ctx.emit('storageStop', { success: false, message: (e as Error).message });
        }
      })(),
    );
    return ok();
  }

  private async halt(r: Running): Promise<void> {
    clearInterval(r.maintenance);
    r.stopping.abort(new Error('the storage node stopped'));
    for (const c of this.downloads.values()) c.abort(new Error('download cancelled'));
    for (const u of this.uploads.values()) u.cancelled = true;
    await r.net.stop();
  }

  async destroy(): Promise<StdLogosResult> {
    this.config();
    await this.close();
    this.cfg = undefined;
    this.key = undefined;
    return ok();
  }

  /** Stops the node (if running) and waits for background work; the module host's shutdown. */
  async close(): Promise<void> {
    if (this.starting !== undefined) await this.starting;
    const r = this.running;
    this.running = undefined;
    if (r !== undefined) await this.halt(r);
    await Promise.all([...this.tasks]);
  }

  // ---- identity and info

  version(): StdLogosResult {
    this.config();
    return ok(LIBSTORAGE_VERSION);
  }

  dataDir(): StdLogosResult {
    return ok(this.config().dataDir);
  }

  peerId(): StdLogosResult {
    this.config();
    return ok(peerIdFromPrivateKey(this.key!).toString());
  }

  spr(): StdLogosResult {
    return ok(this.node().net.spr());
  }

  debug(): StdLogosResult {
    const { net } = this.node();
    return ok({
      id: net.libp2p.peerId.toString(),
      addrs: net.addrs().map(String),
      spr: net.spr(),
      announceAddresses: net.announceAddrs().map(String),
      table: { localNode: { ...net.localNode() }, nodes: net.knownNodes().map((n) => ({ ...n })) },
    });
  }

  updateLogLevel(level: Json | undefined): StdLogosResult {
    this.config();
    const l = textArg(level, 'logLevel').toUpperCase();
    if (!(LOG_LEVELS as readonly string[]).includes(l))
      return fail(`Failed to update log level: invalid value for log level: ${textArg(level, 'logLevel')}`);
    this.log.level = pinoLevel(l);
    return ok();
  }

  connect(peer: Json | undefined, addrs: Json | undefined): StdLogosResult {
    const { net } = this.node();
    const peerId = nonEmptyArg(peer, 'peerId');
    try {
      peerIdFromString(peerId);
    } catch {
      return fail(`Invalid peer id: ${peerId}`);
    }
    const list = stringListArg(addrs, 'peerAddresses');
    this.track(
      net.connect(peerId, list).then(
        () => this.ctx.emit('storageConnect', { success: true, message: '' }),
        (e: Error) => this.ctx.emit('storageConnect', { success: false, message: e.message }),
      ),
    );
    return ok();
  }

  togglePrivateQueries(enabled: Json | undefined): StdLogosResult {
    const cfg = this.config();
    const on = boolArg(enabled, 'enabled');
    if (on && !(cfg.mixEnabled && cfg.dhtMixProxy.length > 0))
      return fail('Private queries need Mix: set "mix-enabled" to true and at least one "dht-mix-proxy".');
    const previous = this.privateQueries;
    this.privateQueries = on;
    return ok(previous);
  }

  // ---- uploads

  private newSession(): string {
    return String(this.nextSession++);
  }

  uploadUrl(path: Json | undefined, chunkSize: Json | undefined): StdLogosResult {
    const { store } = this.node();
    const file = this.resolvePath(nonEmptyArg(path, 'filePath'));
    const size = chunkSizeArg(chunkSize, DEFAULT_BLOCK_SIZE);
    let total: number;
    try {
      const st = statSync(file);
      if (!st.isFile()) return fail(`File not found: ${file}`);
      total = st.size;
    } catch {
      return fail(`File not found: ${file}`);
    }
    const sessionId = this.newSession();
    const progress = new Progress(total, (bytes) =>
      this.ctx.emit('storageUploadProgress', { success: true, sessionId, bytes }),
    );
    const name = basename(file);
    const writer = new DatasetWriter(store, size, name, mimetypeOf(name), (n) => progress.add(n));
    const upload: Upload = { writer, cancelled: false, chain: Promise.resolve() };
    this.uploads.set(sessionId, upload);
    this.track(
      (async () => {
        try {
          for await (const chunk of createReadStream(file, { highWaterMark: size })) {
            if (upload.cancelled)
              throw new StorageModuleError(
                'STORAGE_MODULE_UPLOAD_FAILED',
                'Failed to upload the file, the operation is cancelled.',
              );
            await writer.push(chunk as Buffer);
          }
          let cid: string;
          try {
            cid = cidText(await writer.finish());
          } catch (e) {
            throw new StorageModuleError(
              'STORAGE_MODULE_UPLOAD_FAILED',
              `Failed to finalize the upload session: ${(e as Error).message}`,
            );
          }
          this.ctx.emit('storageUploadDone', { success: true, sessionId, cid });
        } catch (e) {
          const msg = (e as Error).message;
          const error = msg.startsWith('Failed to') ? msg : `Failed to upload the file: ${msg}`;
          this.ctx.emit('storageUploadDone', { success: false, sessionId, error });
        } finally {
          this.uploads.delete(sessionId);
        }
      })(),
    );
    return ok(sessionId);
  }

  uploadInit(filename: Json | undefined, chunkSize: Json | undefined): StdLogosResult {
    const { store } = this.node();
    const name = filename === undefined || filename === null ? '' : basename(textArg(filename, 'filename'));
    const size = chunkSizeArg(chunkSize, DEFAULT_BLOCK_SIZE, DEFAULT_BLOCK_SIZE);
    const sessionId = this.newSession();
    const writer = new DatasetWriter(
      store,
      size,
      name === '' ? undefined : name,
      name === '' ? undefined : mimetypeOf(name),
    );
    this.uploads.set(sessionId, { writer, cancelled: false, chain: Promise.resolve() });
    return ok(sessionId);
  }

  uploadChunk(session: Json | undefined, chunk: Json | undefined): StdLogosResult {
    this.node();
    const sessionId = nonEmptyArg(session, 'sessionId');
    const data = Buffer.from(textArg(chunk, 'chunk'), 'utf8');
    const upload = this.uploads.get(sessionId);
    if (upload === undefined)
      return fail(`Failed to upload the chunk, the session is not found: ${sessionId}`);
    upload.chain = upload.chain.then(() => upload.writer.push(data));
    this.track(
      upload.chain.then(
        () => this.ctx.emit('storageUploadProgress', { success: true, sessionId, bytes: data.length }),
        (e: Error) =>
          this.ctx.emit('storageUploadProgress', {
            success: false,
            sessionId,
            error: `Failed to upload the chunk: ${e.message}`,
          }),
      ),
    );
    return ok();
  }

  async uploadFinalize(session: Json | undefined): Promise<StdLogosResult> {
    this.node();
    const sessionId = nonEmptyArg(session, 'sessionId');
    const upload = this.uploads.get(sessionId);
    if (upload === undefined)
      return fail(`Failed to finalize the upload session, session not found: ${sessionId}`);
    this.uploads.delete(sessionId);
    try {
      await upload.chain;
      return ok(cidText(await upload.writer.finish()));
    } catch (e) {
      return fail(`Failed to finalize the upload session: ${(e as Error).message}`);
    }
  }

  uploadCancel(session: Json | undefined): StdLogosResult {
    this.node();
    const sessionId = nonEmptyArg(session, 'sessionId');
    const upload = this.uploads.get(sessionId);
    if (upload !== undefined) upload.cancelled = true;
    this.uploads.delete(sessionId);
    return ok();
  }

  // ---- downloads

  async downloadToUrl(
    arg: Json | undefined,
    path: Json | undefined,
    local: Json | undefined,
    chunkSize: Json | undefined,
  ): Promise<StdLogosResult> {
    const { engine } = this.node();
    const cid = cidArg(arg, 'Failed to start download');
    const dest = this.resolvePath(nonEmptyArg(path, 'filePath'));
    const isLocal = boolArg(local, 'local');
    const size = chunkSizeArg(chunkSize, DEFAULT_BLOCK_SIZE);
    const sessionId = cidText(cid);
    if (this.downloads.has(sessionId)) return fail(`A download of ${sessionId} is already under way.`);
    let total: number;
    try {
      // the manifest first, for the size the progress is measured against (30 s, as the reference)
      total = (await engine.manifest(cid, isLocal, AbortSignal.timeout(FETCH_TIMEOUT_MS))).datasetSize;
    } catch (e) {
      return fail(`Failed to start download: ${(e as Error).message}`);
    }
    const ctl = new AbortController();
    this.downloads.set(sessionId, ctl);
    const progress = new Progress(total, (bytes) =>
      this.ctx.emit('storageDownloadProgress', { success: true, sessionId, bytes }),
    );
    this.track(
      (async () => {
        // written beside the destination and renamed into place: a failed download leaves no file
        const tmp = join(dirname(dest), `.${basename(dest)}.${randomBytes(4).toString('hex')}.part`);
        try {
          const fh = await open(tmp, 'w', 0o644);
          try {
            for await (const piece of engine.retrieve(cid, isLocal, size, ctl.signal)) {
              await fh.write(piece);
              progress.add(piece.length);
            }
          } finally {
            await fh.close();
          }
          await rename(tmp, dest);
          this.ctx.emit('storageDownloadDone', { success: true, sessionId });
        } catch (e) {
          await rm(tmp, { force: true });
          this.ctx.emit('storageDownloadDone', { success: false, sessionId, error: downloadError(e, ctl) });
        } finally {
          this.downloads.delete(sessionId);
        }
      })(),
    );
    return ok(sessionId);
  }

  downloadChunks(
    arg: Json | undefined,
    local: Json | undefined,
    chunkSize: Json | undefined,
  ): StdLogosResult {
    const { engine } = this.node();
    const cid = cidArg(arg, 'Failed to start chunk download');
    const isLocal = boolArg(local, 'local');
    const size = chunkSizeArg(chunkSize, DEFAULT_BLOCK_SIZE);
    try {
      refuseTreeCid(cid);
    } catch (e) {
      return fail(`Failed to start chunk download: ${(e as Error).message}`);
    }
    const sessionId = cidText(cid);
    if (this.downloads.has(sessionId)) return fail(`A download of ${sessionId} is already under way.`);
    const ctl = new AbortController();
    this.downloads.set(sessionId, ctl);
    this.track(
      (async () => {
        try {
          for await (const piece of engine.retrieve(cid, isLocal, size, ctl.signal))
            this.ctx.emit('storageDownloadProgress', {
              success: true,
              sessionId,
              chunk: Buffer.from(piece).toString('base64'),
            });
          this.ctx.emit('storageDownloadDone', { success: true, sessionId });
        } catch (e) {
          this.ctx.emit('storageDownloadDone', { success: false, sessionId, error: downloadError(e, ctl) });
        } finally {
          this.downloads.delete(sessionId);
        }
      })(),
    );
    return ok(sessionId);
  }

  downloadCancel(session: Json | undefined): StdLogosResult {
    this.node();
    const sessionId = nonEmptyArg(session, 'sessionId');
    this.downloads.get(sessionId)?.abort(new Error('download cancelled'));
    return ok();
  }

  // ---- repository

  async exists(arg: Json | undefined): Promise<StdLogosResult> {
    const { store } = this.node();
    return ok(store.has(cidArg(arg, 'Failed to check the data existence')));
  }

  async fetch(arg: Json | undefined): Promise<StdLogosResult> {
    const { engine } = this.node();
    const cid = cidArg(arg, 'Failed to fetch the data');
    const text = cidText(cid);
    try {
      await engine.manifest(cid, false, AbortSignal.timeout(FETCH_TIMEOUT_MS));
    } catch (e) {
      return fail(`Failed to fetch the data: ${(e as Error).message}`);
    }
    const { signal } = this.node().stopping;
    this.track(
      (async () => {
        for await (const _ of engine.retrieve(cid, false, DEFAULT_BLOCK_SIZE, signal)) {
          // the blocks are kept as they arrive
        }
      })().catch((e: Error) => this.log.warn({ cid: text, err: e.message }, 'Unable to fetch blocks')),
    );
    return ok();
  }

  async remove(arg: Json | undefined): Promise<StdLogosResult> {
    const { engine } = this.node();
    const cid = cidArg(arg, 'Failed to delete the data');
    try {
      await engine.remove(cid);
    } catch (e) {
      return fail(`Failed to delete the data: ${(e as Error).message}`);
    }
    return ok();
  }

  space(): StdLogosResult {
    return ok({ ...this.node().store.space() });
  }

  async manifests(): Promise<StdLogosResult> {
    const { engine, store } = this.node();
    const out: Json[] = [];
    for (const cid of store.manifestCids()) {
      try {
        const m = await engine.manifest(cid, true, AbortSignal.timeout(FETCH_TIMEOUT_MS));
        out.push({ cid: cidText(cid), ...manifestJson(m) });
      } catch (e) {
        this.log.warn({ cid: cidText(cid), err: (e as Error).message }, 'Failed to decode manifest');
      }
    }
    return ok(out);
  }

  async downloadManifest(arg: Json | undefined): Promise<StdLogosResult> {
    const { engine } = this.node();
    const cid = cidArg(arg, 'Failed to fetch manifest');
    try {
      const m = await engine.manifest(cid, false, AbortSignal.timeout(FETCH_TIMEOUT_MS));
      // inferred: the version number of the manifest format, 1 for the only one written
      return ok({ manifestVersion: 1, ...manifestJson(m) });
    } catch (e) {
      return fail(`Failed to fetch manifest: ${(e as Error).message}`);
    }
  }

  importFiles(dir: Json | undefined): StdLogosResult {
    this.node();
    const path = this.resolvePath(nonEmptyArg(dir, 'path'));
    let names: string[];
    try {
      names = readdirSync(path, { withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name)
        .sort();
    } catch {
      return fail(`Not a directory: ${path}`);
    }
    const sessions: Json[] = [];
    for (const n of names) {
      const r = this.uploadUrl(join(path, n), DEFAULT_BLOCK_SIZE);
      if (r.success) sessions.push(r.value);
      else this.log.warn({ file: n, err: r.error }, 'importFiles: failed to start upload');
    }
    return ok(sessions);
  }
}

/** A manifest's fields as `manifests` and `downloadManifest` show them (absent names as null). */
function manifestJson(m: Manifest): Record<string, Json> {
  return {
    treeCid: cidText(m.treeCid),
    datasetSize: m.datasetSize,
    blockSize: m.blockSize,
    filename: m.filename ?? null,
    mimetype: m.mimetype ?? null,
  };
}

function downloadError(e: unknown, ctl: AbortController): string {
  if (ctl.signal.aborted) return 'Failed to stream: download cancelled.';
  return `Failed to stream file: ${(e as Error).message}`;
}

/** The pino level of a reference log level. */
function pinoLevel(l: string): string {
  switch (l) {
    case 'TRACE':
      return 'trace';
    case 'DEBUG':
      return 'debug';
    case 'INFO':
    case 'NOTICE':
      return 'info';
    case 'WARN':
      return 'warn';
    case 'ERROR':
      return 'error';
    default:
      return 'fatal';
  }
}
