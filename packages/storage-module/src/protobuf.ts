/**
 * The few protobuf wire rules the storage module writes and reads (its manifest, operator.md §3.1, and
 * the signed peer records of §3.1 SPRs), in nim-libp2p minprotobuf's manner: varints (wire type 0)
 * and length-delimited bytes (wire type 2) in the order written; fixed-width fields are skipped when
 * read. Reading checks every length against the buffer before slicing it.
 */
import { varint } from 'multiformats';
import { StorageModuleError } from './errors.ts';

export class ProtoWriter {
  private readonly parts: Uint8Array[] = [];

  private varint(v: number): void {
    this.parts.push(varint.encodeTo(v, new Uint8Array(varint.encodingLength(v))));
  }

  uint(field: number, v: number): void {
    this.varint((field << 3) | 0);
    this.varint(v);
  }

  bytes(field: number, b: Uint8Array): void {
    this.varint((field << 3) | 2);
    this.varint(b.length);
    this.parts.push(b);
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.parts.reduce((s, p) => s + p.length, 0));
    let off = 0;
    for (const p of this.parts) {
      out.set(p, off);
      off += p.length;
    }
    return out;
  }
}

/** Every field of one message in wire order: varints as numbers, length-delimited ones as bytes. */
export function readFieldList(buf: Uint8Array): [number, number | Uint8Array][] {
  const out: [number, number | Uint8Array][] = [];
  let off = 0;
  const readVarint = (): number => {
    let v: number;
    let n: number;
    try {
      [v, n] = varint.decode(buf, off);
    } catch {
      throw new StorageModuleError('STORAGE_MODULE_BAD_PROTOBUF', 'bad varint');
    }
    if (n <= 0 || off + n > buf.length)
      throw new StorageModuleError('STORAGE_MODULE_BAD_PROTOBUF', 'truncated varint');
    off += n;
    return v;
  };
  while (off < buf.length) {
    const key = readVarint();
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (field === 0) throw new StorageModuleError('STORAGE_MODULE_BAD_PROTOBUF', 'field number 0');
    if (wire === 0) out.push([field, readVarint()]);
    else if (wire === 2) {
      const len = readVarint();
      if (len > buf.length - off)
        throw new StorageModuleError('STORAGE_MODULE_BAD_PROTOBUF', 'truncated field');
      out.push([field, buf.subarray(off, off + len)]);
      off += len;
    } else if (wire === 1 || wire === 5) {
      const len = wire === 1 ? 8 : 4;
      if (len > buf.length - off)
        throw new StorageModuleError('STORAGE_MODULE_BAD_PROTOBUF', 'truncated field');
      off += len;
    } else throw new StorageModuleError('STORAGE_MODULE_BAD_PROTOBUF', `unsupported wire type ${wire}`);
  }
  return out;
}
