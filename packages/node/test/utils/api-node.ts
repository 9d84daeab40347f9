/**
 * Helpers of the API tests that talk to a node over real sockets: a fast in-process test node, NDJSON
 * stream clients (a normal one on node:http, a raw one on node:net that can stop reading so TCP
 * backpressure builds up), a parser of chunked HTTP bodies and a polling wait.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Logger, pino } from 'pino';
import type { Deployment } from '../../src/ledger/deployment.ts';
import type { UserConfig } from '../../src/node/config.ts';
import { devnetConfig } from '../../src/node/devnet.ts';
import { LogosNode, type NodeOptions } from '../../src/node/node.ts';
import { INSECURE_TEST_PROOFS } from '../../src/zk/insecure-test-proofs.ts';
import { FAST } from '../mocks/fast-deployment.ts';
import { waitUntil } from './wait-until.ts';

/** Re-exported for the many tests that import it from here with the test node. */
export { waitUntil };

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface TestNode {
  readonly node: LogosNode;
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * A node on the FAST deployment (100 ms slots, k = 2) with the insecure test proofs, its API on an
 * ephemeral port of 127.0.0.1 and its state in a temporary directory removed by `stop`.
 */
export interface FastNodeOptions {
  readonly bootstrap?: { readonly force_bootstrap?: boolean; readonly prolonged_bootstrap_period?: number };
  /** Default: FAST (genesis at start). */
  readonly deployment?: Deployment;
  /** Default: the devnet configuration (the node leads with the devnet keys). */
  readonly config?: UserConfig;
  /** A data folder to use and keep (default: a temporary one, removed by `stop`). */
  readonly dir?: string;
  /** Default: a silent logger. */
  readonly logger?: Logger;
  /** The peer-to-peer network (default: the node's own libp2p service on a free loopback port). */
  readonly network?: NodeOptions['network'];
  /** The file `config` was read from (the node reads its keys from it again on a reload). */
  readonly configFile?: string;
  /** The metrics listener (default: none, so that test nodes running at once never share a port). */
  readonly metricsAddress?: string;
  /** Start from this checkpoint (`--checkpoint`). */
  readonly checkpoint?: NodeOptions['checkpoint'];
  /** Called when the node stops on a fatal error. */
  readonly onFatal?: NodeOptions['onFatal'];
}

export async function startFastNode(opts: FastNodeOptions = {}): Promise<TestNode> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'logos-api-'));
  const removeDir = () => {
    if (opts.dir === undefined) rmSync(dir, { recursive: true, force: true });
  };
  const cfg = opts.config ?? devnetConfig();
  let node: LogosNode;
  try {
    node = await LogosNode.start({
      deployment: opts.deployment ?? FAST,
      config: {
        ...cfg,
        api: { backend: { ...cfg.api.backend, listen_address: '127.0.0.1:0' } },
        metrics: { listen_address: opts.metricsAddress ?? null, configured: true },
        cryptarchia: {
          ...cfg.cryptarchia,
          service: {
            ...cfg.cryptarchia.service,
            bootstrap: {
              ...cfg.cryptarchia.service.bootstrap,
              prolonged_bootstrap_period: 0.5,
              ...opts.bootstrap,
            },
          },
        },
        state: { base_folder: dir },
      },
      baseDir: dir,
      logger: opts.logger ?? pino({ level: 'silent' }),
      proofs: INSECURE_TEST_PROOFS,
      ...(opts.network && { network: opts.network }),
      ...(opts.configFile !== undefined && { configFile: opts.configFile }),
      ...(opts.checkpoint !== undefined && { checkpoint: opts.checkpoint }),
      ...(opts.onFatal !== undefined && { onFatal: opts.onFatal }),
    });
  } catch (e) {
    removeDir();
    throw e;
  }
  const port = Number(node.api.listening!.split(':').pop());
  return {
    node,
    base: `http://127.0.0.1:${port}`,
    port,
    async stop() {
      try {
        await node.stop();
      } finally {
        removeDir();
      }
    },
  };
}

/** A block line of the block streams, parsed enough for order and identity checks. */
export interface BlockLine {
  readonly id: string;
  readonly parent: string;
  readonly slot: number;
  readonly tip: string;
  readonly tipSlot: number;
  readonly lib: string;
  readonly libSlot: number;
  /** The exact text of the `block` member, to compare with `GET /cryptarchia/blocks/{id}`. */
  readonly blockText: string;
}

const LINE_HEAD = '{"block":';

/** Parses a line of `blocks_range` or `events/blocks/stream`; throws if it is not the expected shape. */
export function parseBlockLine(line: string): BlockLine {
  const v = JSON.parse(line) as {
    block: { header: { id: string; parent_block: string; slot: number } };
    tip: string;
    tip_slot: number;
    lib: string;
    lib_slot: number;
  };
  const keys = Object.keys(v).join(',');
  if (keys !== 'block,tip,tip_slot,lib,lib_slot') throw new Error(`unexpected line keys ${keys}`);
  const cut = line.lastIndexOf(',"tip":"');
  if (!line.startsWith(LINE_HEAD) || cut < 0) throw new Error(`unexpected line layout: ${line.slice(0, 80)}`);
  return {
    id: v.block.header.id,
    parent: v.block.header.parent_block,
    slot: v.block.header.slot,
    tip: v.tip,
    tipSlot: v.tip_slot,
    lib: v.lib,
    libSlot: v.lib_slot,
    blockText: line.slice(LINE_HEAD.length, cut),
  };
}

/**
 * An NDJSON client on node:http (its own socket, no agent), reading as fast as it can. It keeps the
 * last `keep` lines (all by default) and counts every line.
 */
export class NdjsonClient {
  readonly lines: string[] = [];
  count = 0;
  status: number | undefined;
  contentType: string | undefined;
  /** The response ended normally (the server finished the stream). */
  ended = false;
  /** The connection is gone (ended, aborted or failed). */
  closed = false;
  error: Error | undefined;
  private readonly req: http.ClientRequest;
  private buf = '';

  /** The text after the last newline (an incomplete line). */
  get partial(): string {
    return this.buf;
  }

  constructor(
    url: string,
    private readonly keep = Number.POSITIVE_INFINITY,
  ) {
    this.req = http.get(url, { agent: false }, (res) => {
      this.status = res.statusCode;
      this.contentType = res.headers['content-type'];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        this.buf += chunk;
        let i = this.buf.indexOf('\n');
        while (i >= 0) {
          this.lines.push(this.buf.slice(0, i));
          if (this.lines.length > this.keep) this.lines.shift();
          this.count++;
          this.buf = this.buf.slice(i + 1);
          i = this.buf.indexOf('\n');
        }
      });
      res.on('end', () => {
        this.ended = true;
      });
      res.on('close', () => {
        this.closed = true;
      });
      res.on('error', (e) => {
        this.error = e;
      });
    });
    this.req.on('error', (e) => {
      this.error ??= e;
      this.closed = true;
    });
  }

  /** Waits for the response head. */
  async started(ms = 10_000): Promise<void> {
    await waitUntil(() => this.status !== undefined || this.closed, ms, 'the response head');
    if (this.status === undefined) throw new Error(`no response: ${this.error?.message ?? 'closed'}`);
  }

  /** Waits until `n` lines have been received in total. */
  async waitForCount(n: number, ms: number, what = `${n} lines`): Promise<void> {
    await waitUntil(() => this.count >= n || this.ended || this.closed, ms, what);
    if (this.count < n) throw new Error(`the stream closed after ${this.count} lines, before ${what}`);
  }

  /** Waits until the stream ends (the server finished it). */
  async waitForEnd(ms: number): Promise<void> {
    await waitUntil(() => this.ended || this.closed, ms, 'the end of the stream');
    if (this.error) throw this.error;
  }

  /** Drops the connection (the client leaves). */
  close(): void {
    this.req.destroy();
  }
}

/** Fetches a whole NDJSON stream that ends by itself (e.g. a `blocks_range`). */
export async function fetchNdjson(
  url: string,
  ms = 20_000,
): Promise<{ status: number; contentType: string | undefined; lines: string[]; rest: string }> {
  const c = new NdjsonClient(url);
  try {
    await c.started(ms);
    await c.waitForEnd(ms);
    return {
      status: c.status!,
      contentType: c.contentType,
      lines: c.lines,
      rest: c.partial,
    };
  } finally {
    c.close();
  }
}

/**
 * An HTTP/1.1 client on a bare TCP socket: it sends one GET and reads nothing until `resume`, so the
 * server's writes back up into its socket (TCP backpressure), as with a stalled reader.
 */
export class RawClient {
  readonly socket: net.Socket;
  private readonly chunks: Buffer[] = [];
  closed = false;
  /** The server closed its side (FIN). */
  gotEnd = false;
  readonly connected: Promise<void>;

  constructor(
    private readonly port: number,
    private readonly path: string,
    opts: { paused?: boolean; send?: boolean } = {},
  ) {
    this.socket = net.connect(port, '127.0.0.1');
    const paused = opts.paused ?? true;
    if (paused) this.socket.pause();
    this.connected = new Promise((resolve, reject) => {
      this.socket.once('connect', () => resolve());
      this.socket.once('error', reject);
    });
    this.socket.on('data', (d: Buffer) => this.chunks.push(d));
    this.socket.on('end', () => {
      this.gotEnd = true;
    });
    this.socket.on('error', () => {});
    this.socket.on('close', () => {
      this.closed = true;
    });
    if (opts.send ?? true) this.send();
  }

  /** Sends the request (once). */
  send(): void {
    this.socket.write(
      `GET ${this.path} HTTP/1.1\r\nHost: 127.0.0.1:${this.port}\r\nConnection: close\r\n\r\n`,
    );
  }

  get received(): number {
    return this.chunks.reduce((n, c) => n + c.length, 0);
  }

  resume(): void {
    this.socket.resume();
  }

  /** The response so far: status, headers and the de-chunked body. */
  response(): ChunkedResponse {
    return parseChunkedResponse(Buffer.concat(this.chunks));
  }

  close(): void {
    this.socket.destroy();
  }
}

export interface ChunkedResponse {
  /** Undefined while the head has not fully arrived. */
  readonly status: number | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The terminating zero-length chunk arrived: the server ended the response normally. */
  readonly complete: boolean;
  /** Bytes received after the terminating chunk (none on a well-behaved connection). */
  readonly trailing: number;
}

/** Parses an HTTP/1.1 response with a chunked body, as far as it has arrived. */
export function parseChunkedResponse(raw: Buffer): ChunkedResponse {
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd < 0) return { status: undefined, headers: {}, body: '', complete: false, trailing: 0 };
  const [statusLine, ...headerLines] = raw.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(statusLine!.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const h of headerLines) {
    const i = h.indexOf(':');
    headers[h.slice(0, i).trim().toLowerCase()] = h.slice(i + 1).trim();
  }
  if (headers['transfer-encoding'] !== 'chunked') throw new Error(`not a chunked response: ${statusLine}`);
  const parts: Buffer[] = [];
  let pos = headEnd + 4;
  let complete = false;
  let trailing = 0;
  for (;;) {
    const eol = raw.indexOf('\r\n', pos);
    if (eol < 0) break;
    const size = Number.parseInt(raw.subarray(pos, eol).toString('latin1'), 16);
    if (!Number.isInteger(size)) throw new Error(`bad chunk size at byte ${pos}`);
    if (size === 0) {
      complete = true;
      // the last chunk, then an empty trailer section
      trailing = Math.max(0, raw.length - (eol + 4));
      break;
    }
    if (raw.length < eol + 2 + size + 2) {
      parts.push(raw.subarray(eol + 2, Math.min(raw.length, eol + 2 + size)));
      break;
    }
    parts.push(raw.subarray(eol + 2, eol + 2 + size));
    pos = eol + 2 + size + 2;
  }
  return { status, headers, body: Buffer.concat(parts).toString('utf8'), complete, trailing };
}

/** The TCP sockets of this process (client and server sides), for checks that a connection closed. */
export function processSockets(): net.Socket[] {
  const handles = (process as unknown as { _getActiveHandles?: () => unknown[] })._getActiveHandles?.() ?? [];
  return handles.filter((h): h is net.Socket => h instanceof net.Socket);
}

/** The server side of the client socket `client` (both live in this process). */
export function serverSideOf(client: net.Socket): net.Socket | undefined {
  return processSockets().find(
    (s) => s !== client && s.remotePort === client.localPort && s.localPort === client.remotePort,
  );
}
