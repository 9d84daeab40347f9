/**
 * Waku Metadata (`/vac/waku/metadata/1.0.0`, 66/WAKU2-METADATA) of the `delivery_module` node: peers
 * tell each other their cluster and shards (`WakuMetadataRequest`/`Response` of `@waku/proto`, one
 * varint-length-prefixed message each way). nwaku asks every peer it connects to and disconnects a peer
 * that does not answer or reports another cluster, so this node serves it; it also asks peers that
 * announce it and disconnects those of another cluster, as nwaku does.
 */
import type { Connection, Stream } from '@libp2p/interface';
import { proto_metadata } from '@waku/proto';
import { DeliveryError } from './errors.ts';
import { lengthPrefixed, readLengthPrefixed } from './length-prefixed.ts';

export const METADATA_PROTOCOL = '/vac/waku/metadata/1.0.0';
/** A request or answer lists at most 1024 shards. */
export const MAX_METADATA_BYTES = 8 * 1024;
/** A peer that has not answered by then is left alone. */
export const METADATA_TIMEOUT_MS = 5_000;

export interface Membership {
  readonly clusterId: number;
  readonly shards: readonly number[];
}

/**
 * Answers a metadata request with our cluster and shards; true when the asking peer is of another
 * cluster (the caller then disconnects it). A peer that does not send its request (or take the
 * answer) within `timeoutMs` fails the exchange, so a silent stream is not held open.
 */
export async function serveMetadata(
  stream: Stream,
  own: Membership,
  timeoutMs: number = METADATA_TIMEOUT_MS,
): Promise<boolean> {
  const signal = AbortSignal.timeout(timeoutMs);
  const body = await beforeAbort(
    readLengthPrefixed(stream, MAX_METADATA_BYTES),
    signal,
    'metadata request not received in time',
  );
  const req = proto_metadata.WakuMetadataRequest.decode(body, { limits: { shards: 1024 } });
  const res = proto_metadata.WakuMetadataResponse.encode({
    clusterId: own.clusterId,
    shards: [...own.shards],
  });
  if (!stream.send(lengthPrefixed(res))) await stream.onDrain({ signal });
  await stream.close();
  return req.clusterId !== undefined && req.clusterId !== own.clusterId;
}

/** `p`, or a rejection with `message` when `signal` aborts first. */
function beforeAbort<T>(p: Promise<T>, signal: AbortSignal, message: string): Promise<T> {
  if (signal.aborted) return Promise.reject(new DeliveryError('DELIVERY_TIMEOUT', message));
  let onAbort = (): void => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new DeliveryError('DELIVERY_TIMEOUT', message));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([p, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

/** Asks a connected peer for its cluster and shards. */
export async function requestMetadata(connection: Connection, own: Membership): Promise<Membership> {
  const signal = AbortSignal.timeout(METADATA_TIMEOUT_MS);
  const stream = await connection.newStream(METADATA_PROTOCOL, { signal });
  try {
    const req = proto_metadata.WakuMetadataRequest.encode({
      clusterId: own.clusterId,
      shards: [...own.shards],
    });
    if (!stream.send(lengthPrefixed(req))) await stream.onDrain({ signal });
    const body = await beforeAbort(
      readLengthPrefixed(stream, MAX_METADATA_BYTES),
      signal,
      'metadata request timed out',
    );
    const res = proto_metadata.WakuMetadataResponse.decode(body, { limits: { shards: 1024 } });
    if (res.clusterId === undefined)
      throw new DeliveryError('DELIVERY_BAD_METADATA', 'empty cluster-id reported');
    await stream.close().catch(() => {});
    return { clusterId: res.clusterId, shards: res.shards };
  } catch (e) {
    stream.abort(e as Error);
    throw e;
  }
}
