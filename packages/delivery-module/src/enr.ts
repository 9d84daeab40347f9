/**
 * The Waku ENR of the `delivery_module` node (operator.md §4.2 `MyENR`, §6.3: standard Ethereum discv5
 * records with the Waku fields of 31/WAKU2-ENR): `ip`/`tcp`/`udp`, `waku2` (the capability bits,
 * encoded by `@waku/enr`), `rs`/`rsv` (cluster and relay shards, the `@waku/utils` codec) and
 * `multiaddrs` (each address as a 2-byte big-endian length and its bytes, without `/p2p/`, the layout
 * `@waku/enr` decodes). Also reads the records of entry nodes and of discovered peers: their relay
 * bit, cluster and the TCP address to dial.
 */
import { ENR, SignableENR } from '@chainsafe/enr';
import { multiaddr } from '@multiformats/multiaddr';
import { decodeWaku2, encodeWaku2 } from '@waku/enr';
import { decodeRelayShard, encodeRelayShard } from '@waku/utils';
import { DeliveryError } from './errors.ts';

export interface LocalEnrOptions {
  /** The secp256k1 secret key, 32 bytes. */
  readonly secret: Uint8Array;
  /** The announced IPv4 (`nat: extip:`, or the listen address when it is a concrete one). */
  readonly ip: string | null;
  readonly tcpPort: number;
  readonly udpPort: number;
  readonly relay: boolean;
  readonly extMultiaddrs: readonly string[];
  /** The cluster and the relay shards the node serves (the `rs`/`rsv` field); none when relay is off. */
  readonly clusterId: number;
  readonly shards: readonly number[];
}

/** 31/WAKU2-ENR `multiaddrs`: for each, its length (u16 big-endian) then its bytes. */
export function encodeEnrMultiaddrs(addrs: readonly string[]): Uint8Array {
  const parts = addrs.map((a) => {
    const ma = multiaddr(a);
    if (ma.getComponents().some((c) => c.name === 'p2p'))
      throw new DeliveryError('DELIVERY_BAD_ADDRESS', `ENR multiaddr ${a} must not contain a peer id`);
    return ma.bytes;
  });
  const out = new Uint8Array(parts.reduce((n, p) => n + 2 + p.length, 0));
  const view = new DataView(out.buffer);
  let off = 0;
  for (const p of parts) {
    view.setUint16(off, p.length, false);
    out.set(p, off + 2);
    off += 2 + p.length;
  }
  return out;
}

export function createLocalEnr(o: LocalEnrOptions): SignableENR {
  const enr = SignableENR.createV4(o.secret);
  if (o.ip !== null) enr.ip = o.ip;
  enr.tcp = o.tcpPort;
  enr.udp = o.udpPort;
  enr.set(
    'waku2',
    Uint8Array.of(encodeWaku2({ relay: o.relay, store: false, filter: false, lightPush: false })),
  );
  if (o.extMultiaddrs.length > 0) enr.set('multiaddrs', encodeEnrMultiaddrs(o.extMultiaddrs));
  if (o.relay && o.shards.length > 0)
    // 31/WAKU2-ENR: an index list under `rs`, a bit vector under `rsv` from 64 shards on
    enr.set(
      o.shards.length >= 64 ? 'rsv' : 'rs',
      encodeRelayShard({ clusterId: o.clusterId, shards: [...o.shards] }),
    );
  return enr;
}

/** Parses an `enr:` text record; throws with the reason. */
export function decodeEnr(text: string): ENR {
  return ENR.decodeTxt(text);
}

/** Whether the record announces a Waku relay node. */
export function hasRelay(enr: ENR): boolean {
  const w = enr.kvs.get('waku2');
  return w !== undefined && w.length === 1 && decodeWaku2(w[0]!).relay;
}

/** The cluster of a record's `rs`/`rsv` field, or undefined when it has none (or an unreadable one). */
export function clusterOf(enr: ENR): number | undefined {
  const v = enr.kvs.get('rs') ?? enr.kvs.get('rsv');
  if (v === undefined) return undefined;
  try {
    return decodeRelayShard(v).clusterId;
  } catch {
    return undefined;
  }
}

/**
 * `/ip4/<ip>/tcp/<port>/p2p/<peer id>` of a record, or undefined when it has no IPv4 TCP address or a
 * malformed one.
 */
export function tcpDialAddress(enr: ENR): string | undefined {
  let ip: string | undefined;
  let tcp: number | undefined;
  try {
    // the record's fields are decoded on reading: a malformed one (a 3-byte `ip`) throws
    ip = enr.ip;
    tcp = enr.tcp;
  } catch {
    return undefined;
  }
  if (ip === undefined || tcp === undefined || tcp === 0) return undefined;
  return `/ip4/${ip}/tcp/${tcp}/p2p/${enr.peerId.toString()}`;
}
