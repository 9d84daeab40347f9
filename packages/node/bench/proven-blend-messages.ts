/**
 * Real Blend messages for the benchmarks: an epoch of 100 core nodes (deterministic keys, the
 * reference deployment's quotas for that size), and cover messages of one layer (as the devnet and
 * the reference deployment send them), each made by a core node with a real proof of quota of the
 * core branch (the shipped Groth16 keys, zk/keys/poq) and addressed to the node its proof of
 * selection designates. Proving takes seconds per message, so the messages are made once and cached
 * in `.bench-cache/`, keyed by the PoQ keys' hashes (zk/keys/manifest.json) and this setup.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BlendEpochState, BlendMembership } from '../src/blend/membership.ts';
import { PayloadType } from '../src/blend/message/index.ts';
import { type BlendKeys, EpochProcessor } from '../src/blend/processor.ts';
import { EpochQuotaCounter, type EpochQuotas } from '../src/blend/quota.ts';
import { bytesToHex, hexToBytes } from '../src/codec/hex.ts';
import { ed25519PublicKey } from '../src/crypto/ed25519.ts';
import { zkPublicKey } from '../src/crypto/zk-keys.ts';
import type { ProofSystem } from '../src/ledger/proof-system.ts';
import { SHIPPED_CIRCUITS_DIR } from '../src/zk/circuit-folder.ts';
import { Groth16ProofSystem } from '../src/zk/groth16-system.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CACHE = join(ROOT, '.bench-cache');

/** Core nodes of the epoch. */
export const MEMBERS = 100;
/** Layers of a message (`num_blend_layers` of the devnet and reference deployments). */
export const LAYERS = 1;
/**
 * The reference deployment's quotas at 100 core nodes: core `ceil(36,000 rounds · 1.0 · 1 / 100)`,
 * leadership `β_c · (1 + R_c)` = 2, PoW `β_c` = 1.
 */
const QUOTAS: EpochQuotas = { core: 360n, leadership: 2n, pow: 1n };

/** Node i's keys: an Ed25519 seed and a Zk secret derived from its index. */
export function nodeKeys(i: number): BlendKeys {
  const signingSeed = new Uint8Array(createHash('sha256').update(`blend-bench-node-${i}`).digest());
  return { signingSeed, signingPublic: ed25519PublicKey(signingSeed), zkSecret: BigInt(1000 + i) };
}

/** The epoch's Blend state as node `local` sees it (null: no member). */
export function epochState(local: number | null): BlendEpochState {
  const nodes = Array.from({ length: MEMBERS }, (_, i) => {
    const k = nodeKeys(i);
    return {
      publicKey: k.signingPublic,
      zkId: zkPublicKey(k.zkSecret!),
      locators: [`/ip4/127.0.0.1/udp/${3400 + i}/quic-v1`],
    };
  });
  return {
    epoch: 7,
    nonce: 123_456_789n,
    aged: 42n,
    lottery0: 11n,
    lottery1: 13n,
    powDifficulty: 1n << 240n,
    membership: BlendMembership.fromNodes(nodes, local === null ? null : nodeKeys(local).signingPublic),
    dropped: [],
  };
}

/** Node `i`'s processor of the epoch, verifying (and proving) with `proofs`. */
export function processorOf(i: number, proofs: ProofSystem): EpochProcessor {
  return new EpochProcessor(epochState(i), LAYERS, new EpochQuotaCounter(7, QUOTAS), nodeKeys(i), {
    prover: proofs,
    verifier: proofs,
  });
}

/** An encoded message and the index of the node its (only) layer is addressed to. */
export interface ProvenMessage {
  readonly bytes: Uint8Array;
  readonly recipient: number;
}

/**
 * `count` cover messages with real proofs of quota, sent by nodes 0, 1, …: from the cache when it
 * matches the PoQ keys and this setup, otherwise proved now (on every core) and cached.
 */
export async function provenBlendMessages(count: number): Promise<ProvenMessage[]> {
  const manifest = JSON.parse(readFileSync(join(SHIPPED_CIRCUITS_DIR, 'manifest.json'), 'utf8')) as {
    circuits: { poq: unknown };
  };
  const tag = createHash('sha256')
    .update(JSON.stringify(manifest.circuits.poq))
    .update(`members=${MEMBERS} layers=${LAYERS} quotas=${QUOTAS.core},${QUOTAS.leadership},${QUOTAS.pow}`)
    .digest('hex')
    .slice(0, 16);
  const file = join(CACHE, `blend-messages-${count}-${tag}.json`);
  if (existsSync(file)) {
    const rows = JSON.parse(readFileSync(file, 'utf8')) as { bytes: string; recipient: number }[];
    return rows.map((r) => ({ bytes: hexToBytes(r.bytes), recipient: r.recipient }));
  }
  const zk = new Groth16ProofSystem({ circuits: SHIPPED_CIRCUITS_DIR, provers: availableParallelism() });
  try {
    const messages = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const sender = processorOf(i % MEMBERS, zk);
        const layer = await sender.proveLayer('core', {});
        if (layer === null) throw new Error('the core quota is used up');
        const recipient = sender.state.membership.members.findIndex((m) =>
          m.publicKey.every((b, j) => b === layer.input.recipientSigningKey[j]),
        );
        return { bytes: sender.wrap(PayloadType.Cover, new Uint8Array(0), [layer]), recipient };
      }),
    );
    mkdirSync(CACHE, { recursive: true });
    writeFileSync(
      file,
      JSON.stringify(messages.map((m) => ({ bytes: bytesToHex(m.bytes), recipient: m.recipient }))),
    );
    return messages;
  } finally {
    await zk.close();
  }
}
