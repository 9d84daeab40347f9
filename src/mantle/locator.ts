/**
 * SDP locators: multiaddrs where a provider can be reached. Kept as the multiaddr's binary form
 * (what is hashed and encoded: `u16 length ‖ bytes`, at most 329 bytes); JSON is the text form.
 */
import { type Multiaddr, multiaddr } from '@multiformats/multiaddr';
import { DecodeError, EncodeError } from '../codec/errors.ts';
import { boundedBytes, type Codec, expected } from '../codec/schema.ts';

export type Locator = Uint8Array;

export const MAX_LOCATOR_BYTES = 329;

const raw = boundedBytes(0, MAX_LOCATOR_BYTES, 'hex', 'a locator');

function checkedBytes(b: Uint8Array): Uint8Array {
  let m: Multiaddr;
  try {
    m = multiaddr(b);
  } catch (e) {
    throw new DecodeError(`invalid multiaddr: ${(e as Error).message}`);
  }
  checkLocator(m);
  return b;
}

const zeroGroup = /^(0+|0+(\.0+){3})?$/;

/**
 * A locator must not name an unspecified address (0.0.0.0, ::) nor carry a peer id
 * (F: core/src/sdp/mod.rs `Locator::try_from`, which decoding applies too).
 */
function checkLocator(m: Multiaddr): void {
  for (const c of m.getComponents()) {
    if (c.name === 'ip4' && c.value !== undefined && c.value.split('.').every((g) => Number(g) === 0)) {
      throw new DecodeError(
        `Locator multiaddr must not contain an unspecified IPv4 address: ${m.toString()}`,
      );
    }
    if (c.name === 'ip6' && c.value !== undefined && c.value.split(':').every((g) => zeroGroup.test(g))) {
      throw new DecodeError(
        `Locator multiaddr must not contain an unspecified IPv6 address: ${m.toString()}`,
      );
    }
    if (c.name === 'p2p') {
      throw new DecodeError(`Locator multiaddr must not contain a peer ID: ${m.toString()}`);
    }
  }
}

export function locatorFromString(text: string): Locator {
  let m: Multiaddr;
  try {
    m = multiaddr(text);
  } catch (e) {
    throw new DecodeError(`invalid multiaddr ${JSON.stringify(text)}: ${(e as Error).message}`);
  }
  checkLocator(m);
  const bytes = m.bytes;
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
