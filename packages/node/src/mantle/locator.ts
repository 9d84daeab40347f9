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

const IP4 = 4;
const IP6 = 41;
const P2P = 421;

/** True if the address text has only zero digits (`::`, `0:0::0`, `::0.0.0.0`): all 128 bits zero. */
function isUnspecifiedIp6(value: string): boolean {
  return /^[0:.]*$/.test(value);
}

/**
 * A locator must not name an unspecified IPv4 or IPv6 address nor carry a peer id (`/p2p/...`).
 * F: core/src/sdp/mod.rs `TryFrom<Multiaddr> for Locator`
 */
function checkLocator(m: Multiaddr): void {
  for (const c of m.getComponents()) {
    if (c.code === IP4 && c.value === '0.0.0.0') {
      throw new DecodeError(
        `Locator multiaddr must not contain an unspecified IPv4 address: ${m.toString()}`,
      );
    }
    if (c.code === IP6 && c.value !== undefined && isUnspecifiedIp6(c.value)) {
      throw new DecodeError(
        `Locator multiaddr must not contain an unspecified IPv6 address: ${m.toString()}`,
      );
    }
    if (c.code === P2P) {
      throw new DecodeError(`Locator multiaddr must not contain a peer ID: ${m.toString()}`);
    }
  }
}

// inferred: "is a multiaddr" as @multiformats/multiaddr decides it; F uses the Rust multiaddr crate,
// whose protocol table may differ in corner cases (docs/design/fidelity.md)
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

export function locatorFromString(text: string): Locator {
  let m: Multiaddr;
  try {
    m = multiaddr(text);
  } catch (e) {
    throw new DecodeError(`invalid multiaddr ${JSON.stringify(text)}: ${(e as Error).message}`);
  }
  const bytes = m.bytes;
  if (bytes.length > MAX_LOCATOR_BYTES) {
    throw new DecodeError(`locator is ${bytes.length} bytes, the maximum is ${MAX_LOCATOR_BYTES}`);
  }
  checkLocator(m);
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
