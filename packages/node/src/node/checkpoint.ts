/**
 * Starting a node from a checkpoint (`start --checkpoint <file|block id>`): from a file, or fetched
 * from peers over the checkpoint protocol (src/sync/checkpoint-protocol.ts), confirmed by two of them;
 * and the watch that refuses a checkpoint whose state the chain after it does not verify on.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Block } from '../block/block.ts';
import { type Checkpoint, decodeCheckpoint, type IChain } from '../chain/index.ts';
import { DecodeError } from '../codec/errors.ts';
import { bytesEqual, bytesToHex } from '../codec/hex.ts';
import type { INetwork } from '../network/index.ts';
import { fetchCheckpoint } from '../sync/index.ts';
import { NodeError } from './errors.ts';

/** `--checkpoint`: a file, or the id of a block whose checkpoint peers serve. */
export type CheckpointStart = { readonly file: string } | { readonly blockId: Uint8Array };

export type LoadedCheckpoint = Checkpoint & { readonly decodedBlock: Block };

/** How long a node waits for enough peers to fetch a checkpoint from. */
const PEERS_WAIT_MS = 60_000;
/** Peers that must serve the same checkpoint. */
const QUORUM = 2;

/** Decodes a checkpoint, naming where it came from in the error. */
function decode(bytes: Uint8Array, from: string): LoadedCheckpoint {
  try {
    return decodeCheckpoint(bytes);
  } catch (e) {
    if (e instanceof DecodeError) throw new NodeError('NODE_CHECKPOINT', `${from}: ${e.message}`);
    throw e;
  }
}

/** The checkpoint of a file, decoded and checked. */
export function checkpointFromFile(path: string): LoadedCheckpoint {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new NodeError(
      'NODE_CHECKPOINT',
      `cannot read the checkpoint ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  return decode(bytes, path);
}

/**
 * The checkpoint of `blockId` from the connected peers (waiting up to a minute for two of them),
 * confirmed by two and checked.
 */
export async function checkpointFromPeers(
  network: INetwork,
  blockId: Uint8Array,
  genesis: Uint8Array,
  logger: Logger,
  signal: AbortSignal,
): Promise<LoadedCheckpoint> {
  const until = Date.now() + PEERS_WAIT_MS;
  while (network.connectedPeers().length < QUORUM && Date.now() < until)
    await sleep(200, undefined, { signal });
  const peers = network.connectedPeers();
  logger.info({ block: bytesToHex(blockId), peers: peers.length }, 'fetching the checkpoint from peers');
  try {
    const bytes = await fetchCheckpoint(
      network,
      peers,
      { id: blockId, genesis, signal, quorum: QUORUM },
      logger,
    );
    const c = decode(bytes, `the checkpoint of block ${bytesToHex(blockId)} from peers`);
    if (!bytesEqual(c.id, blockId) || !bytesEqual(c.genesis, genesis))
      throw new NodeError(
        'NODE_CHECKPOINT',
        `the peers' checkpoint is of block ${bytesToHex(c.id)}, not ${bytesToHex(blockId)}`,
      );
    return c;
  } catch (e) {
    if (e instanceof NodeError || signal.aborted) throw e;
    throw new NodeError('NODE_CHECKPOINT', (e as Error).message);
  }
}

/**
 * Refusals of blocks on the checkpoint after which the checkpoint is refused.
 * inferred: three, as one refused block may be a forgery (docs/design/fidelity.md "Checkpoints")
 */
const REFUSALS = 3;

/**
 * Watches the blocks on a checkpoint the node started from (its LIB, whose parent is not stored):
 * the first block applied on it confirms it; blocks on it refused as invalid `REFUSALS` times during
 * initial block download (IBD asks its peers again each round; gossip is not taken before IBD ends,
 * so a stranger's forged proposals do not count) with none applied mean the state is not the one the
 * chain's proofs of leadership commit to (their `aged_root` and `latest_root` are the UTXO roots of
 * the state they extend): the node says so and stops.
 */
export function watchCheckpoint(
  chain: IChain,
  base: { readonly id: Uint8Array; readonly height: number },
  logger: Logger,
  onRefused: (e: Error) => void,
  /** Whether refusals count now (during initial block download). */
  counting: () => boolean,
): () => void {
  const baseHex = bytesToHex(base.id);
  let refusals = 0;
  const stop = () => {
    chain.off('block', onBlock);
    chain.off('refused', onRefusedBlock);
  };
  const onBlock = (b: { readonly block: Block; readonly id: Uint8Array }) => {
    if (bytesToHex(b.block.header.parent_block) !== baseHex) return;
    logger.info(
      { checkpoint: baseHex, block: bytesToHex(b.id) },
      'checkpoint confirmed: the next block verified on its state',
    );
    stop();
  };
  const onRefusedBlock = (r: {
    readonly parent: Uint8Array;
    readonly id: Uint8Array;
    readonly message: string;
  }) => {
    if (bytesToHex(r.parent) !== baseHex || !counting()) return;
    refusals++;
    logger.warn(
      { checkpoint: baseHex, block: bytesToHex(r.id), err: r.message, refusals },
      'a block on the checkpoint was refused',
    );
    if (refusals < REFUSALS) return;
    stop();
    onRefused(
      new NodeError(
        'NODE_CHECKPOINT',
        `checkpoint refused: the blocks after block ${baseHex} (height ${base.height}) do not verify on its state ` +
          '(their proofs of leadership commit to other UTXO roots); delete the data folder and start from another checkpoint or from genesis',
      ),
    );
  };
  chain.on('block', onBlock);
  chain.on('refused', onRefusedBlock);
  return stop;
}
