/**
 * The binary container of circom and snarkjs files (`.zkey` proving keys, `.wtns` witnesses): a 4-byte
 * magic, a u32 version, a u32 section count, then sections of `u32 type, u64 size, size bytes`, all
 * little-endian (ffjavascript `binfileutils`). Only the section table and the few header fields the
 * node checks are read; every size is checked against the file's before anything is allocated, so a
 * truncated or hostile file is refused with a message naming it and never read past its end.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { LogosError } from '@logos-ts/shared/errors';

export class BinFileError extends LogosError {
  constructor(message: string) {
    super('ZK_BINFILE_ERROR', message);
  }
}

/** Random access to a file's bytes. */
export interface ByteSource {
  readonly size: number;
  /** Exactly `length` bytes at `position` (the caller checked the range). */
  read(position: number, length: number): Uint8Array;
}

export function bytesSource(bytes: Uint8Array): ByteSource {
  return { size: bytes.length, read: (p, n) => bytes.subarray(p, p + n) };
}

/** Opens a file for bounded reads; `close` releases it. */
export function fileSource(path: string): ByteSource & { close(): void } {
  const fd = openSync(path, 'r');
  const size = fstatSync(fd).size;
  return {
    size,
    read(position, length) {
      const out = new Uint8Array(length);
      let done = 0;
      while (done < length) {
        const n = readSync(fd, out, done, length - done, position + done);
        if (n === 0) throw new BinFileError(`unexpected end of file at byte ${position + done}`);
        done += n;
      }
      return out;
    },
    close: () => closeSync(fd),
  };
}

export interface Section {
  readonly type: number;
  /** Offset of the section's data. */
  readonly offset: number;
  readonly size: number;
}

/** More sections than any circom or snarkjs file has: a table beyond it is not such a file. */
const MAX_SECTIONS = 64;

/** The section table of a file of this container with the given magic. */
export function readSections(src: ByteSource, magic: string): { version: number; sections: Section[] } {
  if (src.size < 12) throw new BinFileError(`not a ${magic} file: ${src.size} bytes`);
  const head = src.read(0, 12);
  const got = new TextDecoder().decode(head.subarray(0, 4));
  if (got !== magic) throw new BinFileError(`not a ${magic} file: it starts with ${JSON.stringify(got)}`);
  const view = new DataView(head.buffer, head.byteOffset, 12);
  const version = view.getUint32(4, true);
  const count = view.getUint32(8, true);
  if (count > MAX_SECTIONS) throw new BinFileError(`${magic} file with ${count} sections`);
  const sections: Section[] = [];
  let pos = 12;
  for (let i = 0; i < count; i++) {
    if (pos + 12 > src.size) throw new BinFileError(`${magic} file truncated in its section table`);
    const h = src.read(pos, 12);
    const hv = new DataView(h.buffer, h.byteOffset, 12);
    const type = hv.getUint32(0, true);
    const size = hv.getBigUint64(4, true);
    const offset = pos + 12;
    if (size > BigInt(src.size - offset))
      throw new BinFileError(`${magic} file truncated: section ${type} claims ${size} bytes`);
    sections.push({ type, offset, size: Number(size) });
    pos = offset + Number(size);
  }
  return { version, sections };
}

/** The one section of a type (a file with none, or two, is refused). */
export function section(sections: readonly Section[], type: number, what: string): Section {
  const found = sections.filter((s) => s.type === type);
  if (found.length !== 1) throw new BinFileError(`${what}: ${found.length} sections of type ${type}`);
  return found[0]!;
}

/** Little-endian field reads within one section, refusing reads past its end. */
export class SectionReader {
  private pos = 0;
  constructor(
    private readonly src: ByteSource,
    private readonly s: Section,
    private readonly what: string,
  ) {}

  bytes(n: number): Uint8Array {
    if (n < 0 || this.pos + n > this.s.size)
      throw new BinFileError(`${this.what}: section ${this.s.type} is too short`);
    const out = this.src.read(this.s.offset + this.pos, n);
    this.pos += n;
    return out;
  }

  u32(): number {
    const b = this.bytes(4);
    return new DataView(b.buffer, b.byteOffset, 4).getUint32(0, true);
  }

  /** An unsigned integer of `n` little-endian bytes. */
  uint(n: number): bigint {
    return leToBigint(this.bytes(n));
  }
}

export function leToBigint(b: Uint8Array): bigint {
  let x = 0n;
  for (let i = b.length - 1; i >= 0; i--) x = (x << 8n) | BigInt(b[i]!);
  return x;
}
