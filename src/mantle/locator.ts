/**
 * SDP locators: multiaddrs where a provider can be reached. Kept as the multiaddr's binary form
 * (what is hashed and encoded: `u16 length ‖ bytes`, at most 329 bytes); JSON is the text form.
 */
import { multiaddr } from '@multiformats/multiaddr';
import { DecodeError, EncodeError } from '../codec/errors.ts';
import { boundedBytes, type Codec, expected } from '../codec/schema.ts';

export type Locator = Uint8Array;

export const MAX_LOCATOR_BYTES = 329;

const raw = boundedBytes(0, MAX_LOCATOR_BYTES, 'hex', 'a locator');

function checkedBytes(b: Uint8Array): Uint8Array {
  try {
    multiaddr(b);
  } catch (e) {
    throw new DecodeError(`invalid multiaddr: ${(e as Error).message}`);
  }
  return b;
}

export function locatorFromString(text: string): Locator {
  let bytes: Uint8Array;
  try {
    bytes = multiaddr(text).bytes;
  } catch (e) {
    throw new DecodeError(`invalid multiaddr ${JSON.stringify(text)}: ${(e as Error).message}`);
  }
  if (bytes.length > MAX_LOCATOR_BYTES) {
    throw new DecodeError(`locator is ${bytes.length} bytes, the maximum is ${MAX_LOCATOR_BYTES}`);
  }
  return bytes;
}

export function locatorToString(l: Locator): string {
  return multiaddr(l).toString();
}

export const locator: Codec<Locator> = {
  kind: 'a multiaddr string',
  write(w, v) {
    if (v.length > MAX_LOCATOR_BYTES) throw new EncodeError('locator too long');
    raw.write(w, v);
  },
  read: (r) => checkedBytes(raw.read(r)),
  toJson: (v) => locatorToString(v),
  fromJson(j) {
    if (typeof j !== 'string') throw expected('a multiaddr string', j);
    return locatorFromString(j);
  },
};
