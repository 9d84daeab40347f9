/**
 * Signed peer records as the storage module writes and reads them (operator.md §3.1, §3.4): `spr:` +
 * unpadded base64url of a standard libp2p signed envelope (secp256k1 key, payload type 0x0301
 * PeerRecord, DER ECDSA signature), its sequence number in Unix seconds as the reference's records
 * carry. Reading verifies the signature and that the record's peer id is the signer's; addresses
 * of protocols this node does not know (the reference's mix addresses) are skipped, not fatal.
 */
import type { PrivateKey } from '@libp2p/interface';
import { peerIdFromMultihash, peerIdFromPublicKey } from '@libp2p/peer-id';
import { PeerRecord, RecordEnvelope } from '@libp2p/peer-record';
import { type Multiaddr, multiaddr } from '@multiformats/multiaddr';
import { base64url } from 'multiformats/bases/base64';
import * as Digest from 'multiformats/hashes/digest';
import { StorageModuleError } from './errors.ts';
import { readFieldList } from './protobuf.ts';

/** Longer SPR texts are refused before decoding (a real one is a few hundred characters). */
export const MAX_SPR_CHARS = 4096;
const PEER_RECORD_TYPE = [0x03, 0x01];

export interface DecodedSpr {
  /** The SPR text it was read from. */
  readonly text: string;
  readonly peerId: string;
  readonly seq: number;
  readonly multiaddrs: readonly Multiaddr[];
}

/** The SPR text of a record of `addrs` signed by `key`, with sequence number `seq` (Unix seconds). */
export async function encodeSpr(key: PrivateKey, addrs: readonly Multiaddr[], seq: number): Promise<string> {
  const record = new PeerRecord({
    peerId: peerIdFromPublicKey(key.publicKey),
    multiaddrs: [...addrs],
    seqNumber: BigInt(seq),
  });
  const env = await RecordEnvelope.seal(record, key);
  return `spr:${base64url.baseEncode(env.marshal())}`;
}

/** Decodes and verifies an SPR text; throws "invalid SPR: …" on anything wrong. */
export async function decodeSpr(text: string): Promise<DecodedSpr> {
  if (typeof text !== 'string' || !text.startsWith('spr:'))
    throw new StorageModuleError('STORAGE_MODULE_BAD_SPR', 'invalid SPR: must start with "spr:"');
  if (text.length > MAX_SPR_CHARS)
    throw new StorageModuleError('STORAGE_MODULE_BAD_SPR', 'invalid SPR: too long');
  let env: RecordEnvelope;
  try {
    env = await RecordEnvelope.openAndCertify(base64url.baseDecode(text.slice(4)), PeerRecord.DOMAIN);
  } catch (e) {
    throw new StorageModuleError('STORAGE_MODULE_BAD_SPR', `invalid SPR: ${(e as Error).message}`);
  }
  if (
    env.payloadType.length !== 2 ||
    env.payloadType[0] !== PEER_RECORD_TYPE[0] ||
    env.payloadType[1] !== PEER_RECORD_TYPE[1]
  )
    throw new StorageModuleError('STORAGE_MODULE_BAD_SPR', 'invalid SPR: not a peer record');
  let peerBytes: Uint8Array | undefined;
  let seq = 0;
  const multiaddrs: Multiaddr[] = [];
  try {
    for (const [field, v] of readFieldList(env.payload)) {
      if (field === 1 && v instanceof Uint8Array) peerBytes = v;
      else if (field === 2 && typeof v === 'number') seq = v;
      else if (field === 3 && v instanceof Uint8Array) {
        for (const [f, a] of readFieldList(v)) {
          if (f !== 1 || !(a instanceof Uint8Array)) continue;
          try {
            multiaddrs.push(multiaddr(a));
          } catch {
            // a protocol this node does not speak
          }
        }
      }
    }
  } catch (e) {
    throw new StorageModuleError('STORAGE_MODULE_BAD_SPR', `invalid SPR: ${(e as Error).message}`);
  }
  if (peerBytes === undefined)
    throw new StorageModuleError('STORAGE_MODULE_BAD_SPR', 'invalid SPR: no peer id');
  const signer = peerIdFromPublicKey(env.publicKey).toString();
  let peerId: string;
  try {
    peerId = peerIdFromMultihash(Digest.decode(peerBytes)).toString();
  } catch {
    throw new StorageModuleError('STORAGE_MODULE_BAD_SPR', 'invalid SPR: bad peer id');
  }
  if (peerId !== signer)
    throw new StorageModuleError(
      'STORAGE_MODULE_BAD_SPR',
      'invalid SPR: the record is not signed by its peer',
    );
  return { text, peerId, seq, multiaddrs };
}
