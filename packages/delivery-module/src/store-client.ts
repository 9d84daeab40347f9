/**
 * The Store client of the `delivery_module` (operator.md §4.2 `storeQuery`): one request on
 * `/vac/waku/store-query/3.0.0` to a given store peer, as nwaku's `WakuStoreClient.query` makes it — a
 * varint-length-prefixed `StoreQueryRequest` protobuf (`@waku/proto`), one length-prefixed
 * `StoreQueryResponse` back — and the JSON query and answer of liblogosdelivery's `waku_store_query`
 * (`StoreQueryResponseHex`: hashes and cursor as 0x-hex). The answer's length is checked before its body
 * is read; the whole exchange is bounded by `timeoutMs`.
 */
import type { Stream } from '@libp2p/interface';
import type { Json } from '@logos-ts/shared/json';
import { multiaddr } from '@multiformats/multiaddr';
import { proto_store } from '@waku/proto';
import { MAX_MESSAGE_BYTES } from './config.ts';
import { StoreQueryError } from './errors.ts';
import { lengthPrefixed, readLengthPrefixed } from './length-prefixed.ts';
import { messageJson, to0xHex } from './message.ts';

export const STORE_QUERY_PROTOCOL = '/vac/waku/store-query/3.0.0';
/** nwaku `MaxPageSize`. */
export const MAX_PAGE_SIZE = 100;
/** nwaku `MaxRpcSize`: a full page of the largest messages plus 64 KiB. */
export const MAX_STORE_RPC_BYTES = MAX_PAGE_SIZE * MAX_MESSAGE_BYTES + 64 * 1024;

/** What the client needs of the libp2p node. */
export interface StoreDialer {
  dialProtocol(
    addrs: ReturnType<typeof multiaddr>[],
    protocol: string,
    opts: { signal: AbortSignal },
  ): Promise<Stream>;
}

const field = (q: Record<string, Json>, k: string): Json | undefined =>
  Object.hasOwn(q, k) ? q[k] : undefined;

function hash32(v: Json | undefined, what: string): Uint8Array {
  if (typeof v !== 'string' || !/^(0x)?[0-9a-fA-F]{64}$/.test(v))
    throw new StoreQueryError(`${what} must be a 32-byte hex string`);
  return Uint8Array.from(Buffer.from(v.replace(/^0x/, ''), 'hex'));
}

function int64(v: Json | undefined, what: string): bigint | undefined {
  if (v === undefined || v === null) return undefined;
  const t = typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isInteger(v) ? String(v) : v;
  if (typeof t === 'bigint') return t;
  if (typeof t !== 'string' || !/^-?\d+$/.test(t)) throw new StoreQueryError(`${what} must be an integer`);
  const n = BigInt(t);
  if (n < -(2n ** 63n) || n >= 2n ** 63n) throw new StoreQueryError(`${what} is out of the int64 range`);
  return n;
}

function requiredBool(q: Record<string, Json>, k: string): boolean {
  const v = field(q, k);
  if (typeof v !== 'boolean') throw new StoreQueryError(`${k} is required and must be true or false`);
  return v;
}

/** The query JSON (liblogosdelivery `fromJsonNode`) → the request protobuf. */
export function parseStoreQuery(json: Json | undefined): proto_store.StoreQueryRequest {
  let q: Json;
  try {
    q = typeof json === 'string' ? (JSON.parse(json) as Json) : (json ?? null);
  } catch (e) {
    throw new StoreQueryError(`StoreRequest failed parsing store request: ${(e as Error).message}`);
  }
  if (q === null || typeof q !== 'object' || Array.isArray(q))
    throw new StoreQueryError('StoreRequest failed parsing store request: not a JSON object');
  const o = q as Record<string, Json>;
  const requestId = field(o, 'requestId');
  if (typeof requestId !== 'string' || requestId === '') throw new StoreQueryError('requestId is required');
  const strs = (k: string): string[] => {
    const v = field(o, k);
    if (v === undefined) return [];
    if (!Array.isArray(v) || !v.every((s) => typeof s === 'string'))
      throw new StoreQueryError(`${k} must be an array of strings`);
    return v as string[];
  };
  const pubsubTopic = field(o, 'pubsubTopic');
  if (pubsubTopic !== undefined && typeof pubsubTopic !== 'string')
    throw new StoreQueryError('pubsubTopic must be a string');
  const hashesJson = field(o, 'messageHashes');
  if (hashesJson !== undefined && !Array.isArray(hashesJson))
    throw new StoreQueryError('messageHashes must be an array');
  const limit = field(o, 'paginationLimit');
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0))
    throw new StoreQueryError('paginationLimit must be a non-negative integer');
  const cursor = field(o, 'paginationCursor');
  const timeStart = int64(field(o, 'timeStart'), 'timeStart');
  const timeEnd = int64(field(o, 'timeEnd'), 'timeEnd');
  return {
    requestId,
    includeData: requiredBool(o, 'includeData'),
    paginationForward: requiredBool(o, 'paginationForward'),
    contentTopics: strs('contentTopics'),
    messageHashes: (hashesJson ?? []).map((h) => hash32(h, 'messageHashes')),
    ...(pubsubTopic !== undefined ? { pubsubTopic } : {}),
    ...(timeStart !== undefined ? { timeStart } : {}),
    ...(timeEnd !== undefined ? { timeEnd } : {}),
    ...(cursor !== undefined ? { paginationCursor: hash32(cursor, 'paginationCursor') } : {}),
    ...(limit !== undefined ? { paginationLimit: BigInt(limit) } : {}),
  };
}

/** `peerAddr`: one or more multiaddrs of one peer, comma-separated, each with `/p2p/<id>`. */
export function parsePeerAddrs(peerAddr: Json | undefined): ReturnType<typeof multiaddr>[] {
  if (typeof peerAddr !== 'string' || peerAddr.trim() === '')
    throw new StoreQueryError('StoreRequest failed to parse peer addr: empty');
  return peerAddr.split(',').map((a) => {
    let ma: ReturnType<typeof multiaddr>;
    try {
      ma = multiaddr(a.trim());
    } catch {
      throw new StoreQueryError(`StoreRequest failed to parse peer addr: ${a.trim()}`);
    }
    if (!ma.getComponents().some((c) => c.name === 'p2p'))
      throw new StoreQueryError(`StoreRequest failed to parse peer addr: ${a.trim()} has no /p2p/<peer id>`);
    return ma;
  });
}

/** Runs one store query; the answer in liblogosdelivery's `StoreQueryResponseHex` JSON. */
export async function storeQuery(
  node: StoreDialer,
  request: proto_store.StoreQueryRequest,
  addrs: ReturnType<typeof multiaddr>[],
  timeoutMs: number,
): Promise<Json> {
  const signal = AbortSignal.timeout(timeoutMs);
  let stream: Stream | undefined;
  const work = (async () => {
    stream = await node.dialProtocol(addrs, STORE_QUERY_PROTOCOL, { signal });
    if (!stream.send(lengthPrefixed(proto_store.StoreQueryRequest.encode(request))))
      await stream.onDrain({ signal });
    const body = await readLengthPrefixed(stream, MAX_STORE_RPC_BYTES);
    return proto_store.StoreQueryResponse.decode(body, { limits: { messages: MAX_PAGE_SIZE } });
  })();
  const timedOut = new Promise<never>((_, reject) =>
    signal.addEventListener('abort', () => reject(new StoreQueryError(`timeout after ${timeoutMs} ms`)), {
      once: true,
    }),
  );
  let res: proto_store.StoreQueryResponse;
  try {
    res = await Promise.race([work, timedOut]);
  } catch (e) {
    (stream as Stream | undefined)?.abort(new Error('store query ended'));
    work.catch(() => {});
    throw new StoreQueryError(`StoreRequest failed store query: ${(e as Error).message}`);
  }
  await (stream as Stream | undefined)?.close().catch(() => {});
  const status = res.statusCode ?? 0;
  if (status !== 200)
    throw new StoreQueryError(`StoreRequest failed store query: ${status} ${res.statusDesc ?? ''}`.trimEnd());
  return {
    requestId: res.requestId,
    statusCode: status,
    statusDesc: res.statusDesc ?? '',
    messages: res.messages.map((kv) => ({
      messageHash: to0xHex(kv.messageHash ?? new Uint8Array()),
      message: kv.message === undefined ? null : messageJson(kv.message),
      pubsubTopic: kv.pubsubTopic ?? null,
    })),
    paginationCursor: res.paginationCursor === undefined ? null : to0xHex(res.paginationCursor),
  };
}
