/**
 * The header of a snarkjs/circom Groth16 proving key (`.zkey`, snarkjs `zkey_utils.js`): section 1 names
 * the protocol (1 = Groth16), section 2 holds the base and scalar field sizes and primes, the number of
 * variables and of public inputs, and the domain size. The node reads these, and nothing else of the
 * key, to refuse at start a key that is not a BN254 Groth16 key of the circuit it is meant for.
 */
import { FP_MODULUS, FR_ORDER } from '../crypto/groth16/index.ts';
import { BinFileError, type ByteSource, readSections, SectionReader, section } from './binfile.ts';

export interface ZkeyHeader {
  readonly nVars: number;
  readonly nPublic: number;
  readonly domainSize: number;
}

const GROTH16 = 1;

export function readZkeyHeader(src: ByteSource): ZkeyHeader {
  const { sections } = readSections(src, 'zkey');
  const protocol = new SectionReader(src, section(sections, 1, 'zkey header'), 'zkey header').u32();
  if (protocol !== GROTH16) throw new BinFileError(`zkey of protocol ${protocol}, not Groth16 (1)`);
  const r = new SectionReader(src, section(sections, 2, 'zkey Groth16 header'), 'zkey Groth16 header');
  const n8q = r.u32();
  if (n8q !== 32) throw new BinFileError(`zkey base field of ${n8q} bytes, not BN254's 32`);
  if (r.uint(n8q) !== FP_MODULUS) throw new BinFileError('zkey base field is not BN254');
  const n8r = r.u32();
  if (n8r !== 32) throw new BinFileError(`zkey scalar field of ${n8r} bytes, not BN254's 32`);
  if (r.uint(n8r) !== FR_ORDER) throw new BinFileError('zkey scalar field is not BN254');
  const nVars = r.u32();
  const nPublic = r.u32();
  const domainSize = r.u32();
  return { nVars, nPublic, domainSize };
}
