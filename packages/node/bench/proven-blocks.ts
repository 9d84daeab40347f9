/**
 * A chain of empty blocks with real proofs of leadership for the benchmarks: on a devnet deployment
 * (the shipped devnet file, its genesis time fixed), each block is at the next slot won by one of the
 * devnet keys' genesis notes, carries a Groth16 proof of leadership made with the shipped keys (as the
 * leader makes it, `src/leader/leader-service.ts`), a fresh voucher and a fresh one-time Ed25519
 * leader key that signs the header. Proved once and cached in `.bench-cache/` (the encoded blocks and
 * the deployment text the genesis is rebuilt from), keyed by the deployment, the keys' manifest and
 * the block count. `BENCH_IBD_POL_BLOCKS` blocks (48 by default); proving takes about 2 s a block.
 *
 * An empty block leaves the UTXO tree as it is and the lottery of a slot depends on the epoch only, so
 * the statements of all the blocks are found first (applying the blocks with their proofs still
 * empty) and then proved, `BENCH_IBD_POL_PROVERS` at a time (1 by default: the prover already uses
 * every core); a proof does not commit to the block's parent.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Block, bodyRoot, decodeBlock, encodeBlock } from '../src/block/block.ts';
import { encodeHeader, type Header, headerId } from '../src/block/header.ts';
import { bytesToHex, hexToBytes } from '../src/codec/hex.ts';
import {
  entropyContribution,
  isWinningTicket,
  leaderThreshold,
  leaderTicket,
} from '../src/consensus/lottery.ts';
import { Ed25519Signer, ed25519GenerateSecretKey } from '../src/crypto/ed25519.ts';
import type { Fr } from '../src/crypto/field.ts';
import { voucherCommitment, voucherSecret } from '../src/leader/vouchers.ts';
import { applyBlock, epochStateAt, polPublicInputs } from '../src/ledger/apply.ts';
import { type Deployment, parseDeployment } from '../src/ledger/deployment.ts';
import { devnetKeys } from '../src/ledger/devnet-keys.ts';
import { buildGenesis, type Genesis } from '../src/ledger/genesis.ts';
import {
  type PolPublicInputs,
  type PolWitness,
  PROOFS_ALREADY_VERIFIED,
} from '../src/ledger/proof-system.ts';
import type { LedgerState } from '../src/ledger/state.ts';
import { SHIPPED_CIRCUITS_DIR } from '../src/zk/circuit-folder.ts';
import { Groth16ProofSystem } from '../src/zk/groth16-system.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CACHE = join(ROOT, '.bench-cache');
/** The genesis time of the deployment, in seconds. */
export const POL_GENESIS_TIME_S = 1_700_000_000;
/** The benchmark wallet's voucher master key (any field element). */
const VOUCHER_MASTER = 77n;

export const POL_BLOCKS = Number(process.env.BENCH_IBD_POL_BLOCKS ?? 48);
const PROVERS = Number(process.env.BENCH_IBD_POL_PROVERS ?? 1);

export interface ProvenChain {
  readonly yaml: string;
  readonly deployment: Deployment;
  readonly genesis: Genesis;
  /** Consecutive blocks on the genesis. */
  readonly blocks: Block[];
}

function deploymentYaml(): string {
  return readFileSync(join(ROOT, 'deployments/devnet.yaml'), 'utf8')
    .replace('name: devnet', 'name: pol-bench')
    .replace('genesis_time: null', `genesis_time: ${POL_GENESIS_TIME_S}`);
}

function chainOf(yaml: string): { deployment: Deployment; genesis: Genesis } {
  const deployment = parseDeployment(yaml, 'pol-bench');
  return {
    deployment,
    genesis: buildGenesis(deployment, { config: deployment.ledger, proofs: PROOFS_ALREADY_VERIFIED }),
  };
}

interface Planned {
  readonly header: Header;
  readonly leaderKey: Ed25519Signer;
  readonly inputs: PolPublicInputs;
  readonly witness: PolWitness;
}

/** The next `n` blocks' headers (proofs empty) and leadership statements, slot after won slot. */
function plan(deployment: Deployment, genesis: Genesis, n: number): Planned[] {
  const ctx = { config: deployment.ledger, proofs: PROOFS_ALREADY_VERIFIED };
  const secretOf = new Map(devnetKeys(4).map((k) => [k.publicKey, k.secretKey]));
  const out: Planned[] = [];
  let state: LedgerState = genesis.state;
  let parent = genesis.id;
  for (let slot = state.slot + 1n; out.length < n; slot++) {
    const es = epochStateAt(state, ctx, slot);
    // The first note (by id) of a devnet key in the epoch's aged snapshot, still unspent, that wins.
    let winner: { id: Fr; sk: Fr } | undefined;
    const ids = [...es.notes.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const id of ids) {
      const rec = es.notes.get(id)!;
      const sk = secretOf.get(rec.note.pk);
      if (sk === undefined || rec.channel !== null || rec.locked_by !== null || !state.notes.has(id))
        continue;
      if (
        isWinningTicket(leaderTicket(es.nonce, slot, id, sk), leaderThreshold(rec.note.value, es.lottery))
      ) {
        winner = { id, sk };
        break;
      }
    }
    if (winner === undefined) continue;
    const leaderKey = new Ed25519Signer(ed25519GenerateSecretKey());
    const header: Header = {
      parent_block: parent,
      slot,
      body_root: bodyRoot([], []),
      proof_of_leadership: {
        proof: new Uint8Array(128),
        entropy_contribution: entropyContribution(slot, winner.id, winner.sk),
        leader_key: leaderKey.publicKey,
        voucher_cm: voucherCommitment(voucherSecret(VOUCHER_MASTER, BigInt(out.length))),
      },
    };
    const aged = es.notes.get(winner.id)!;
    const latest = state.notes.get(winner.id)!;
    const inputs = polPublicInputs(es, state.utxos.root(), header);
    const witness: PolWitness = {
      secret_key: winner.sk,
      note_value: aged.note.value,
      note_tx_hash: aged.origin,
      note_output_index: aged.output_index,
      aged_path: es.utxos.path(aged.index),
      aged_index: aged.index,
      latest_path: state.utxos.path(latest.index),
      latest_index: latest.index,
    };
    const block: Block = { header, signature: new Uint8Array(64), uncle_headers: [], transactions: [] };
    const r = applyBlock(state, block, ctx, { skipProofOfLeadership: true });
    state = r.state;
    parent = r.id;
    out.push({ header, leaderKey, inputs, witness });
  }
  return out;
}

/** Proves the planned blocks and chains them on the genesis, each header signed by its leader key. */
async function prove(genesis: Genesis, planned: readonly Planned[]): Promise<Block[]> {
  const zk = new Groth16ProofSystem({ circuits: SHIPPED_CIRCUITS_DIR, provers: PROVERS });
  try {
    let done = 0;
    const t0 = performance.now();
    const proofs = await Promise.all(
      planned.map(async (p) => {
        const proof = await zk.provePol(p.inputs, p.witness);
        done++;
        if (done % 8 === 0 || done === planned.length)
          process.stderr.write(
            `proven-blocks: ${done}/${planned.length} proofs of leadership, ${((performance.now() - t0) / 1000).toFixed(0)} s\n`,
          );
        return proof;
      }),
    );
    const blocks: Block[] = [];
    let parent = genesis.id;
    planned.forEach((p, i) => {
      const header: Header = {
        ...p.header,
        parent_block: parent,
        proof_of_leadership: { ...p.header.proof_of_leadership, proof: proofs[i]! },
      };
      blocks.push({
        header,
        signature: p.leaderKey.sign(encodeHeader(header)),
        uncle_headers: [],
        transactions: [],
      });
      parent = headerId(header);
    });
    return blocks;
  } finally {
    await zk.close();
  }
}

/** `n` blocks with real proofs of leadership on the bench deployment, from the cache when it matches. */
export async function provenBlocks(n = POL_BLOCKS): Promise<ProvenChain> {
  const yaml = deploymentYaml();
  const { deployment, genesis } = chainOf(yaml);
  const keysManifest = readFileSync(join(SHIPPED_CIRCUITS_DIR, 'manifest.json'), 'utf8');
  const tag = createHash('sha256').update(yaml).update(keysManifest).digest('hex').slice(0, 16);
  const file = join(CACHE, `pol-blocks-${n}-${tag}.json`);
  if (existsSync(file)) {
    const cached = JSON.parse(readFileSync(file, 'utf8')) as { yaml: string; blocks: string[] };
    const rebuilt = chainOf(cached.yaml);
    return { yaml: cached.yaml, ...rebuilt, blocks: cached.blocks.map((h) => decodeBlock(hexToBytes(h))) };
  }
  const blocks = await prove(genesis, plan(deployment, genesis, n));
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(file, JSON.stringify({ yaml, blocks: blocks.map((b) => bytesToHex(encodeBlock(b))) }));
  return { yaml, deployment, genesis, blocks };
}
