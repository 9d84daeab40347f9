/**
 * A hostile peer for tests and benchmarks: the product's own libp2p node (the deployment's protocol
 * names and topics, a fresh random identity) that joins a devnet and attacks what costs a node work:
 * - junk transactions at a set rate (transfers of notes that do not exist, with made-up proofs: they
 *   pass the stateless checks and can only be judged against the ledger);
 * - forged proposals: valid headers under fresh keys whose proof of leadership is not one, on a node's
 *   tip, and proposals naming random parents (each an orphan to chase);
 * - a lying chain-sync server: its tip is always far ahead, and a download from it drips a garbage
 *   block every 4.9 s, just inside the frame timeout;
 * - chain-sync requests with oversized length prefixes and truncated frames;
 * - connection churn: dial, hang up, dial again.
 * Each attack runs against one target node until its signal aborts; a peer banned by its target (its
 * dials refused) comes back with a fresh identity, as a real attacker would, and the bans are counted.
 */
import { randomBytes } from 'node:crypto';
import type { PeerId, Stream } from '@libp2p/interface';
import { peerIdFromString } from '@libp2p/peer-id';
import { multiaddr } from '@multiformats/multiaddr';
import { bodyRoot } from '../../src/block/block.ts';
import { encodeHeader, type Header, header as headerCodec } from '../../src/block/header.ts';
import { hexToBytes } from '../../src/codec/hex.ts';
import { ed25519GenerateSecretKey, ed25519PublicKey, ed25519Sign } from '../../src/crypto/ed25519.ts';
import { FR_MODULUS } from '../../src/crypto/field.ts';
import { Opcode } from '../../src/mantle/ops.ts';
import type { SignedMantleTx } from '../../src/mantle/tx.ts';
import { DEFAULT_GOSSIPSUB } from '../../src/network/config.ts';
import { createLibp2pNode, type LogosLibp2p, nodeIdentity } from '../../src/network/libp2p-node.ts';
import { encodeProposal } from '../../src/network/wire/proposal.ts';
import { encodeBlocksResponse, encodeTipResponse } from '../../src/network/wire/sync-messages.ts';
import { encodeTxGossip } from '../../src/network/wire/tx-gossip.ts';

/** The deployment's names a peer speaks. */
export interface ProtocolNames {
  readonly kademlia_protocol_name: string;
  readonly identify_protocol_name: string;
  readonly chain_sync_protocol_name: string;
  readonly block_topic: string;
  readonly tx_topic: string;
}

/** A node to attack: its peer id, its P2P address and its API (for its tip). */
export interface Target {
  readonly peerId: string;
  readonly p2pAddress: string;
  readonly api: string;
}

/** Waits `ms`, or less if `signal` aborts; its listener leaves the (long-lived) signal either way. */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

const u32le = (n: number) => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n, true);
  return b;
};
const frame = (b: Uint8Array) => Uint8Array.from(Buffer.concat([u32le(b.length), b]));
const randomFr = () => BigInt(`0x${randomBytes(31).toString('hex')}`) % FR_MODULUS;

/** A transfer of a note that does not exist, with a made-up ZK signature: well formed, never valid. */
export function junkTx(): SignedMantleTx {
  return {
    mantle_tx: {
      ops: [
        {
          opcode: Opcode.Transfer,
          payload: {
            inputs: [randomFr()],
            outputs: [{ value: 1n + BigInt(randomBytes(1)[0]!), pk: randomFr() }],
          },
        },
      ],
    },
    ops_proofs: [
      {
        type: 'ZkSig',
        signature: { pi_a: randomBytes(32), pi_b: randomBytes(64), pi_c: randomBytes(32) },
      },
    ],
  };
}

/** What the attacks did, for the test's and the benchmark's report. */
export interface AttackCounts {
  junkTxs: number;
  forgedProposals: number;
  orphanProposals: number;
  badFrames: number;
  churnDials: number;
  dripsServed: number;
  /** Identities refused by their target (banned) and replaced. */
  bans: number;
}

export class HostilePeer {
  readonly counts: AttackCounts = {
    junkTxs: 0,
    forgedProposals: 0,
    orphanProposals: 0,
    badFrames: 0,
    churnDials: 0,
    dripsServed: 0,
    bans: 0,
  };
  private node: LogosLibp2p | undefined;
  private readonly targetId: PeerId;

  constructor(
    private readonly names: ProtocolNames,
    readonly target: Target,
  ) {
    this.targetId = peerIdFromString(target.peerId);
  }

  /** The current identity's peer id. */
  get peerId(): string | undefined {
    return this.node?.peerId.toString();
  }

  /** Starts a fresh identity, serving the lying chain sync, and connects it to the target. */
  private async fresh(): Promise<LogosLibp2p> {
    await Promise.resolve(this.node?.stop()).catch(() => {});
    const only = this.targetId;
    const node = await createLibp2pNode(
      {
        host: '127.0.0.1',
        port: 0,
        gossipsub: { ...DEFAULT_GOSSIPSUB, heartbeat_interval_ms: 200 },
        protocols: {
          kademlia: this.names.kademlia_protocol_name,
          identify: this.names.identify_protocol_name,
        },
        gater: {
          denyDialPeer: (p) => !p.equals(only),
          denyInboundEncryptedConnection: (p) => !p.equals(only),
        },
      },
      await nodeIdentity(null),
    );
    await node.start();
    await node.handle(this.names.chain_sync_protocol_name, (stream) => void this.lie(stream), {
      maxInboundStreams: 64,
    });
    this.node = node;
    return node;
  }

  /** A connected node, a fresh identity when the current one is refused (banned). */
  private async connected(signal: AbortSignal): Promise<LogosLibp2p | undefined> {
    for (let attempt = 0; attempt < 3 && !signal.aborted; attempt++) {
      const node = this.node ?? (await this.fresh());
      if (node.getConnections(this.targetId).length > 0) return node;
      try {
        await node.dial(multiaddr(this.target.p2pAddress), { signal: AbortSignal.timeout(5000) });
        await sleep(300, signal); // the target may close a banned peer's connection at once
        if (node.getConnections(this.targetId).length > 0) return node;
      } catch {
        // refused
      }
      if (this.node === node && attempt > 0) {
        this.counts.bans++;
        await this.fresh();
      }
    }
    return undefined;
  }

  /**
   * Runs `round` with a connected node until `signal` aborts, then waits `pauseMs` (what `round`
   * returns: its own pace); a refused connection (the target's inbound rate per address) waits 1 s.
   */
  private async repeat(signal: AbortSignal, round: (node: LogosLibp2p) => Promise<number>): Promise<void> {
    while (!signal.aborted) {
      const node = await this.connected(signal);
      await sleep(node ? await round(node) : 1000, signal);
    }
  }

  /** Answers the target's chain-sync requests with lies: a far tip, then a drip of garbage blocks. */
  private async lie(stream: Stream): Promise<void> {
    try {
      let req = new Uint8Array(0);
      for await (const chunk of stream) {
        const c = chunk instanceof Uint8Array ? chunk : chunk.subarray();
        req = Uint8Array.from(Buffer.concat([req, c]));
        if (req.length >= 5) break;
      }
      const isTip = req[4] === 1;
      if (isTip) {
        const info = await fetch(`${this.target.api}/cryptarchia/info`, { signal: AbortSignal.timeout(3000) })
          .then(
            async (r) =>
              ((await r.json()) as { cryptarchia_info: { slot: number; height: number } }).cryptarchia_info,
          )
          .catch(() => ({ slot: 0, height: 0 }));
        stream.send(
          frame(
            encodeTipResponse({
              kind: 'Tip',
              tip: randomBytes(32),
              slot: BigInt(info.slot + 1),
              height: BigInt(info.height + 1000),
            }),
          ),
        );
      } else {
        for (let i = 0; i < 8; i++) {
          await sleep(4900);
          this.counts.dripsServed++;
          if (!stream.send(frame(encodeBlocksResponse({ kind: 'Block', bytes: randomBytes(300) })))) break;
        }
      }
      await stream.close({ signal: AbortSignal.timeout(5000) });
    } catch {
      stream.abort(new Error('done'));
    }
  }

  /** Junk transactions at `perSecond` to the target (gossip). */
  junk(perSecond: number, signal: AbortSignal): Promise<void> {
    return this.repeat(signal, async (node) => {
      const t0 = Date.now();
      for (let i = 0; i < perSecond && !signal.aborted; i++) {
        try {
          await node.services.pubsub.publish(this.names.tx_topic, encodeTxGossip(junkTx()));
          this.counts.junkTxs++;
        } catch {
          break; // not connected any more
        }
      }
      return Math.max(0, 1000 - (Date.now() - t0));
    });
  }

  /** Forged proposals at `perSecond`: alternately on the target's tip (a bad proof) and on a random parent. */
  proposals(perSecond: number, signal: AbortSignal): Promise<void> {
    let n = 0;
    return this.repeat(signal, async (node) => {
      const tip = await this.tipHeader().catch(() => undefined);
      if (tip) {
        const onTip = n++ % 2 === 0;
        const key = ed25519GenerateSecretKey();
        const h: Header = {
          ...tip.header,
          parent_block: onTip ? tip.id : randomBytes(32),
          slot: tip.header.slot + 1n,
          body_root: bodyRoot([], []),
          proof_of_leadership: { ...tip.header.proof_of_leadership, leader_key: ed25519PublicKey(key) },
        };
        const bytes = encodeProposal({
          header: h,
          uncle_headers: [],
          references: [],
          signature: ed25519Sign(key, encodeHeader(h)),
        });
        try {
          await node.services.pubsub.publish(this.names.block_topic, bytes);
          if (onTip) this.counts.forgedProposals++;
          else this.counts.orphanProposals++;
        } catch {
          // not connected any more
        }
      }
      return 1000 / perSecond;
    });
  }

  private async tipHeader(): Promise<{ id: Uint8Array; header: Header }> {
    const { cryptarchia_info: info } = (await (
      await fetch(`${this.target.api}/cryptarchia/info`)
    ).json()) as {
      cryptarchia_info: { tip: string };
    };
    const block = (await (await fetch(`${this.target.api}/cryptarchia/blocks/${info.tip}`)).json()) as {
      header: Record<string, unknown>;
    };
    const { id: _id, ...fields } = block.header;
    return {
      id: hexToBytes(info.tip),
      header: headerCodec.fromJson({ version: 'Bedrock', ...fields } as never),
    };
  }

  /** Chain-sync requests with an oversized length prefix or a truncated frame, every `everyMs`. */
  badFrames(everyMs: number, signal: AbortSignal): Promise<void> {
    let n = 0;
    return this.repeat(signal, async (node) => {
      try {
        const s = await node.dialProtocol(this.targetId, this.names.chain_sync_protocol_name, {
          signal: AbortSignal.timeout(3000),
        });
        s.send(
          n++ % 2 === 0
            ? Uint8Array.from(Buffer.concat([u32le(0xfffffff0), randomBytes(64)]))
            : Uint8Array.from(Buffer.concat([u32le(200), randomBytes(20)])),
        );
        await s.close({ signal: AbortSignal.timeout(3000) }).catch(() => {});
        this.counts.badFrames++;
      } catch {
        // refused
      }
      return everyMs;
    });
  }

  /** Connection churn: a new identity dials the target and hangs up, every `everyMs`. */
  async churn(everyMs: number, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const node = await this.fresh();
      try {
        await node.dial(multiaddr(this.target.p2pAddress), { signal: AbortSignal.timeout(3000) });
        this.counts.churnDials++;
        await node.hangUp(this.targetId);
      } catch {
        // refused
      }
      await sleep(everyMs, signal);
    }
  }

  async stop(): Promise<void> {
    await Promise.resolve(this.node?.stop()).catch(() => {});
    this.node = undefined;
  }
}
