/**
 * Witness files (`.wtns`, written by circom's witness generators and snarkjs `wtns_utils.js`): section 1
 * holds the field element size, the prime and the number of witness values, section 2 the values, each
 * little-endian in normal form. Value 0 is the constant 1; the public signals (outputs first, then public
 * inputs, as the verification key orders them) follow it.
 */
import { FR_ORDER } from '../crypto/groth16/index.ts';
import {
  BinFileError,
  type ByteSource,
  leToBigint,
  readSections,
  SectionReader,
  section,
} from './binfile.ts';

export interface Witness {
  readonly prime: bigint;
  readonly values: readonly bigint[];
}

export function readWitness(src: ByteSource): Witness {
  const { sections } = readSections(src, 'wtns');
  const h = new SectionReader(src, section(sections, 1, 'wtns header'), 'wtns header');
  const n8 = h.u32();
  if (n8 !== 32) throw new BinFileError(`wtns of ${n8}-byte field elements, not BN254's 32`);
  const prime = h.uint(n8);
  if (prime !== FR_ORDER) throw new BinFileError('wtns field is not the BN254 scalar field');
  const count = h.u32();
  const data = section(sections, 2, 'wtns values');
  if (data.size !== count * n8)
    throw new BinFileError(`wtns declares ${count} values but holds ${data.size} bytes`);
  const bytes = src.read(data.offset, data.size);
  const values: bigint[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const v = leToBigint(bytes.subarray(i * n8, (i + 1) * n8));
    if (v >= prime) throw new BinFileError(`wtns value ${i} is not reduced`);
    values[i] = v;
  }
  if (values[0] !== 1n) throw new BinFileError('wtns value 0 is not the constant 1');
  return { prime, values };
}

/** The public signals of a witness of a circuit with `nPublic` of them. */
export function publicSignals(w: Witness, nPublic: number): bigint[] {
  if (nPublic + 1 > w.values.length)
    throw new BinFileError(`the witness has ${w.values.length} values, fewer than ${nPublic} public signals`);
  return w.values.slice(1, 1 + nPublic);
}
