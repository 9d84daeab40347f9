/**
 * The chain-sync server (F `services/chain/chain-service/src/sync/block_provider.rs`,
 * `service/phases/following.rs`): answers a peer's `GetTip` with the local tip and a
 * `DownloadBlocksRequest` with the blocks from the best known start block to the target, oldest first,
 * at most `batch_size` of them, then `NoMoreBlocks`. Served only in the `Following` phase.
 *
 * Start block: among the known blocks in the block tree, the one whose common ancestor with the target
 * is deepest (that ancestor is the start); otherwise the highest-slot known block that is immutable in
 * storage; otherwise genesis when it is known; otherwise `StartBlockNotFound`. A target in neither the
 * tree nor the immutable chain is `BlockNotFound`.
 */

import type { Logger } from 'pino';
import type { BlockRef, IChain } from '../chain/index.ts';
import { bytesEqual, bytesToHex } from '../codec/hex.ts';
import type { INetwork } from '../network/index.ts';
import {
  type BlocksUnavailableReason,
  decodeRequest,
  encodeBlocksResponse,
  encodeTipResponse,
  type RequestMessage,
  WireError,
} from '../network/index.ts';

/** F `reject_chain_sync_event`'s text outside `Following`. */
export const NOT_ONLINE = 'Node is not in online mode';

type ChainReads = Pick<IChain, 'tip' | 'lib' | 'has' | 'blockRef' | 'blockBytes' | 'canonicalBySlot'>;
type Ref = BlockRef & { readonly parent: Uint8Array };

interface Endpoint {
  readonly ref: Ref;
  /** In the block tree (else an immutable block in storage). */
  readonly inTree: boolean;
}

export class BlockProvider {
  constructor(
    private readonly chain: ChainReads,
    private readonly batchSize: number,
  ) {}

  /** The ids to send (the start excluded), oldest first, or why there are none. */
  findPath(target: Uint8Array, known: readonly Uint8Array[]): Uint8Array[] | BlocksUnavailableReason {
    const t = this.findTarget(target);
    if (!t) return { kind: 'BlockNotFound', id: target };
    const limit = this.batchSize + 1;
    if (t.inTree) {
      const lca = this.deepestLca(t.ref, known);
      if (lca) {
        const path = this.treePath(lca.id, t.ref, limit);
        return (
          path?.slice(1) ?? {
            kind: 'Unknown',
            text: `Invalid state: Couldn't reach start_block: ${bytesToHex(lca.id)}`,
          }
        );
      }
    }
    const start = this.storageStart(known);
    if (!start) return { kind: 'StartBlockNotFound' };
    const lib = this.chain.lib();
    const upTo = t.ref.slot < lib.slot ? t.ref.slot : lib.slot;
    const stored = this.chain.canonicalBySlot(start.slot, upTo, limit).map((b) => b.id);
    if (stored.length === 0 || !bytesEqual(stored[0]!, start.id))
      return { kind: 'Unknown', text: 'Invalid state: the start block is not in the immutable chain' };
    // A node started from a checkpoint holds no block between genesis and the checkpoint's: a path
    // across that gap cannot be served (its next block would not be the child of the one before).
    // inferred: F has no checkpoints (docs/design/fidelity.md "Checkpoints")
    for (let i = 1; i < stored.length; i++) {
      const parent = this.chain.blockRef(stored[i]!)?.parent;
      if (parent === undefined || !bytesEqual(parent, stored[i - 1]!)) return { kind: 'StartBlockNotFound' };
    }
    const last = stored[stored.length - 1]!;
    if (bytesEqual(last, target) || stored.length >= limit) return stored.slice(1);
    // inferred: F appends the tree path from the LIB with the LIB itself again (sent twice); here once (docs/design/fidelity.md)
    const libStored = bytesEqual(last, lib.id);
    const rest = this.treePath(lib.id, t.ref, limit - stored.length + (libStored ? 1 : 0));
    if (!rest)
      return { kind: 'Unknown', text: `Invalid state: Couldn't reach start_block: ${bytesToHex(lib.id)}` };
    return [...stored, ...(libStored ? rest.slice(1) : rest)].slice(1);
  }

  private findTarget(id: Uint8Array): Endpoint | undefined {
    const ref = this.chain.blockRef(id);
    if (!ref) return undefined;
    if (this.chain.has(id)) return { ref, inTree: true };
    return this.isImmutable(ref) ? { ref, inTree: false } : undefined;
  }

  /** A stored block of the canonical chain at or below the LIB. */
  private isImmutable(ref: Ref): boolean {
    if (ref.slot > this.chain.lib().slot) return false;
    const at = this.chain.canonicalBySlot(ref.slot, ref.slot, 1)[0];
    return at !== undefined && bytesEqual(at.id, ref.id);
  }

  /** Of the known blocks in the tree, the common ancestor with the target of greatest height. */
  private deepestLca(target: Ref, known: readonly Uint8Array[]): Ref | undefined {
    let best: Ref | undefined;
    for (const k of known) {
      if (!this.chain.has(k)) continue;
      const kr = this.chain.blockRef(k);
      if (!kr) continue;
      const lca = this.lca(kr, target);
      if (lca && (!best || lca.height > best.height)) best = lca;
    }
    return best;
  }

  private lca(a0: Ref, b0: Ref): Ref | undefined {
    let a: Ref | undefined = a0;
    let b: Ref | undefined = b0;
    while (a && b && !bytesEqual(a.id, b.id)) {
      if (a.height >= b.height) a = a.height === 0 ? undefined : this.chain.blockRef(a.parent);
      else b = b.height === 0 ? undefined : this.chain.blockRef(b.parent);
    }
    return a && b ? a : undefined;
  }

  /** The path start → target (both included), oldest first, keeping the oldest `limit` ids. */
  private treePath(start: Uint8Array, target: Ref, limit: number): Uint8Array[] | undefined {
    const path: Uint8Array[] = [];
    let cur: Ref | undefined = target;
    while (cur) {
      path.push(cur.id);
      if (bytesEqual(cur.id, start)) {
        path.reverse();
        return path.slice(0, limit);
      }
      if (cur.height === 0) return undefined;
      cur = this.chain.blockRef(cur.parent);
    }
    return undefined;
  }

  /** The highest-slot known immutable block; else genesis when it is known. */
  private storageStart(known: readonly Uint8Array[]): Ref | undefined {
    let best: Ref | undefined;
    for (const k of known) {
      const r = this.chain.blockRef(k);
      if (r && this.isImmutable(r) && (!best || r.slot > best.slot)) best = r;
    }
    if (best) return best;
    const genesis = this.chain.canonicalBySlot(0n, 0n, 1)[0];
    if (genesis && known.some((k) => bytesEqual(k, genesis.id))) return this.chain.blockRef(genesis.id);
    return undefined;
  }
}

export interface ChainSyncServerDeps {
  readonly chain: ChainReads;
  readonly network: Pick<INetwork, 'handle' | 'penalize'>;
  /** Whether the node is in the `Following` phase. */
  readonly following: () => boolean;
  readonly logger: Logger;
}

export interface ChainSyncServerOptions {
  readonly protocol: string;
  readonly batchSize: number;
  readonly maxInbound: number;
  readonly maxRequestBytes: number;
}

/** Registers the chain-sync protocol handler. */
export function serveChainSync(opts: ChainSyncServerOptions, deps: ChainSyncServerDeps): void {
  const provider = new BlockProvider(deps.chain, opts.batchSize);
  deps.network.handle(opts.protocol, (request, peer) => serve(request, peer, provider, deps), {
    maxRequestBytes: opts.maxRequestBytes,
    maxInbound: opts.maxInbound,
  });
}

async function* serve(
  bytes: Uint8Array,
  peer: string,
  provider: BlockProvider,
  deps: ChainSyncServerDeps,
): AsyncGenerator<Uint8Array> {
  let req: RequestMessage;
  try {
    req = decodeRequest(bytes);
  } catch (e) {
    if (!(e instanceof WireError)) throw e;
    // F closes the stream without an answer when the request does not decode.
    deps.network.penalize(peer, 'minor', `chain sync: ${e.message}`);
    deps.logger.debug({ peer, err: e.message }, 'chain sync: undecodable request');
    return;
  }
  const online = deps.following();
  if (req.kind === 'GetTip') {
    if (!online) {
      yield encodeTipResponse({ kind: 'Failure', reason: NOT_ONLINE });
      return;
    }
    const tip = deps.chain.tip();
    yield encodeTipResponse({ kind: 'Tip', tip: tip.id, slot: tip.slot, height: BigInt(tip.height) });
    return;
  }
  if (!online) {
    yield encodeBlocksResponse({ kind: 'Failure', reason: { kind: 'Unknown', text: NOT_ONLINE } });
    return;
  }
  const kb = req.known_blocks;
  const path = provider.findPath(req.target_block, [
    kb.local_tip,
    kb.latest_immutable_block,
    ...kb.additional_blocks,
  ]);
  if (!Array.isArray(path)) {
    deps.logger.debug(
      { peer, target: bytesToHex(req.target_block), reason: path.kind },
      'chain sync: no blocks to serve',
    );
    yield encodeBlocksResponse({ kind: 'Failure', reason: path });
    return;
  }
  for (const id of path) {
    const block = deps.chain.blockBytes(id);
    if (!block) {
      // F ends the block stream at the first block storage cannot load.
      deps.logger.warn({ block: bytesToHex(id) }, 'chain sync: a block on the path is missing from storage');
      break;
    }
    yield encodeBlocksResponse({ kind: 'Block', bytes: block });
  }
  yield encodeBlocksResponse({ kind: 'NoMoreBlocks' });
}
