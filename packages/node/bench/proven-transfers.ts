/**
 * Transfers with real ZkSig proofs for the benchmarks: a devnet deployment whose genesis holds `n`
 * notes of a known key, and one transfer spending each, proved once with the shipped keys and cached
 * in `.bench-cache/` (keyed by the deployment and the keys' manifest).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bytesToHex, hexToBytes } from '../src/codec/hex.ts';
import { type Deployment, parseDeployment } from '../src/ledger/deployment.ts';
import { buildGenesis, type Genesis } from '../src/ledger/genesis.ts';
import { decodeSignedTx, encodeSignedTx, type SignedMantleTx, txHash, txHashToFr } from '../src/mantle/tx.ts';
import { SHIPPED_CIRCUITS_DIR } from '../src/zk/circuit-folder.ts';
import { Groth16ProofSystem } from '../src/zk/groth16-system.ts';
import { ctxOf, genesisNotes, KEYS, transfer } from '../test/mocks/ledger.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CACHE = join(ROOT, '.bench-cache');

function benchDeploymentYaml(n: number): string {
  const devnet = readFileSync(join(ROOT, 'deployments/devnet.yaml'), 'utf8');
  const lines = devnet.split('\n');
  const start = lines.findIndex((l) => l.trim() === 'notes:');
  const pk = /pk: ([0-9a-f]{64})/.exec(lines[start + 1]!)![1]; // devnet key 0
  let end = start + 1;
  while (end < lines.length && lines[end]!.trimStart().startsWith('- {')) end++;
  const notes = Array.from({ length: n }, () => `    - { value: 100000000, pk: ${pk} }`);
  return [...lines.slice(0, start + 1), ...notes, ...lines.slice(end)]
    .join('\n')
    .replace('name: devnet', 'name: mempool-bench')
    .replace('genesis_time: null', 'genesis_time: 1700000000');
}

export interface Setup {
  readonly yaml: string;
  readonly deployment: Deployment;
  readonly genesis: Genesis;
}

export function setup(n: number): Setup {
  const yaml = benchDeploymentYaml(n);
  const deployment = parseDeployment(yaml, 'mempool-bench');
  return { yaml, deployment, genesis: buildGenesis(deployment, ctxOf(deployment)) };
}

/** N transfers with real ZkSig proofs, from the cache when it matches the deployment and the keys. */
export async function provenTxs(n: number): Promise<{ s: Setup; txs: SignedMantleTx[] }> {
  const s = setup(n);
  const keysManifest = readFileSync(join(SHIPPED_CIRCUITS_DIR, 'manifest.json'), 'utf8');
  const tag = createHash('sha256').update(s.yaml).update(keysManifest).digest('hex').slice(0, 16);
  const file = join(CACHE, `mempool-transfers-${n}-${tag}.json`);
  if (existsSync(file)) {
    const hexes = JSON.parse(readFileSync(file, 'utf8')) as string[];
    return { s, txs: hexes.map((h) => decodeSignedTx(hexToBytes(h))) };
  }
  const zk = new Groth16ProofSystem({ circuits: SHIPPED_CIRCUITS_DIR, provers: availableParallelism() });
  try {
    const notes = genesisNotes(s.genesis);
    const txs = await Promise.all(
      notes.slice(0, n).map(async (note) => {
        const t = transfer(s.genesis.state, [note], [{ value: 10n, pk: KEYS[3]!.publicKey }]).tx;
        const sig = await zk.proveZkSign(txHashToFr(txHash(t.mantle_tx)), [note.sk]);
        return { ...t, ops_proofs: [{ type: 'ZkSig' as const, signature: sig }] };
      }),
    );
    mkdirSync(CACHE, { recursive: true });
    writeFileSync(file, JSON.stringify(txs.map((t) => bytesToHex(encodeSignedTx(t)))));
    return { s, txs };
  } finally {
    await zk.close();
  }
}
