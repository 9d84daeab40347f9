import { readFileSync } from 'node:fs';

interface KeyPair {
  title: string;
  sk: string;
  pk: string;
}

export interface ReferenceVectors {
  note_id: { op_id_hex: string; output_index: number; value: string; pk: string; note_id: string };
  zk_keys: { pairs: KeyPair[] };
  ed25519_keys: { pairs: KeyPair[] };
  genesis_parameter: { chain_id: string; genesis_time_hex_le: string; genesis_time_iso: string };
}

export const REFERENCE: ReferenceVectors = JSON.parse(
  readFileSync(new URL('./vectors/reference.json', import.meta.url), 'utf8'),
) as ReferenceVectors;
