/**
 * BlakeRng, the reference's deterministic random stream (F: utils/src/blake_rng.rs), and the sized
 * pseudo-random bytes built on it (F: blend/crypto/src/lib.rs).
 *
 * The stream of a 64-byte seed is `Blake2b-512(seed ‖ u64_le(0)) ‖ Blake2b-512(seed ‖ u64_le(1)) ‖ …`,
 * consumed byte by byte: `nextU32`/`nextU64` read the next 4/8 bytes little-endian. Seeding from a
 * domain and a key uses `Blake2b-512(domain ‖ key)` as the seed. Blake2b-512 is libsodium's
 * (sodium-native), the stream's only cost.
 */
import { randomFillSync } from 'node:crypto';
import sodium from 'sodium-native';

export const BLAKE_RNG_SEED_BYTES = 64;
const BLOCK_BYTES = 64;

/** Blake2b with a 64-byte digest of the concatenation of `parts`. */
export function blake2b512(...parts: readonly Uint8Array[]): Uint8Array {
  const out = Buffer.alloc(BLOCK_BYTES);
  if (parts.length === 1) sodium.crypto_generichash(out, parts[0] as Buffer);
  else sodium.crypto_generichash_batch(out, parts as Buffer[]);
  return new Uint8Array(out.buffer, out.byteOffset, BLOCK_BYTES);
}

export class BlakeRng {
  /** `seed ‖ u64_le(counter)`, hashed for each block. */
  private readonly input = Buffer.alloc(BLAKE_RNG_SEED_BYTES + 8);
  private readonly block = Buffer.alloc(BLOCK_BYTES);
  private counter = 0;
  /** Bytes of `block` already handed out (a full block when none is buffered). */
  private used = BLOCK_BYTES;

  private constructor(seed: Uint8Array) {
    this.input.set(seed, 0);
  }

  /** The stream of a 64-byte seed (F: `SeedableRng::from_seed`). */
  static fromSeedBytes(seed: Uint8Array): BlakeRng {
    if (seed.length !== BLAKE_RNG_SEED_BYTES) {
      throw new RangeError(`a BlakeRng seed is ${BLAKE_RNG_SEED_BYTES} bytes, got ${seed.length}`);
    }
    return new BlakeRng(seed);
  }

  /** The stream seeded with `Blake2b-512(domain ‖ key)` (F: `pseudo_random_sized_bytes`, `Cipher::new`). */
  static fromDomain(domain: Uint8Array, key: Uint8Array): BlakeRng {
    return new BlakeRng(blake2b512(domain, key));
  }

  /** A stream from a fresh random seed (F: `from_entropy`). */
  static fromEntropy(): BlakeRng {
    return new BlakeRng(randomFillSync(new Uint8Array(BLAKE_RNG_SEED_BYTES)));
  }

  /** An independent copy at the same position of the same stream (F: `#[derive(Clone)]`). */
  clone(): BlakeRng {
    const c = new BlakeRng(this.input.subarray(0, BLAKE_RNG_SEED_BYTES));
    c.block.set(this.block);
    c.counter = this.counter;
    c.used = this.used;
    return c;
  }

  /** Writes the next `dst.length` bytes of the stream into `dst`. */
  fillBytes(dst: Uint8Array): void {
    let off = 0;
    while (off < dst.length) {
      if (this.used === BLOCK_BYTES) this.refill();
      const n = Math.min(BLOCK_BYTES - this.used, dst.length - off);
      dst.set(this.block.subarray(this.used, this.used + n), off);
      this.used += n;
      off += n;
    }
  }

  /** XORs the next `data.length` bytes of the stream into `data`. */
  xorInto(data: Uint8Array): void {
    let off = 0;
    while (off < data.length) {
      if (this.used === BLOCK_BYTES) this.refill();
      const n = Math.min(BLOCK_BYTES - this.used, data.length - off);
      const b = this.block;
      const start = this.used;
      for (let i = 0; i < n; i++) data[off + i]! ^= b[start + i]!;
      this.used += n;
      off += n;
    }
  }

  nextBytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    this.fillBytes(out);
    return out;
  }

  nextU32(): number {
    const b = this.nextBytes(4);
    return (b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 0;
  }

  nextU64(): bigint {
    const b = this.nextBytes(8);
    return new DataView(b.buffer).getBigUint64(0, true);
  }

  private refill(): void {
    // The counter is a usize in F (u64 on the 64-bit targets it runs on); a stream never reaches 2^53 blocks.
    this.input.writeUInt32LE(this.counter % 0x1_0000_0000, BLAKE_RNG_SEED_BYTES);
    this.input.writeUInt32LE(Math.floor(this.counter / 0x1_0000_0000), BLAKE_RNG_SEED_BYTES + 4);
    sodium.crypto_generichash(this.block, this.input);
    this.counter++;
    this.used = 0;
  }
}

/** `size` pseudo-random bytes of the stream seeded with `Blake2b-512(domain ‖ key)`. */
export function pseudoRandomBytes(domain: Uint8Array, key: Uint8Array, size: number): Uint8Array {
  return BlakeRng.fromDomain(domain, key).nextBytes(size);
}
