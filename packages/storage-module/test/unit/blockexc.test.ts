/**
 * The storage block exchange against a misbehaving peer (operator.md §6.2 network fetch; the
 * project's rule that a peer sending garbage is dropped): a peer answering with an oversized frame,
 * a malformed answer or bytes that do not hash to the wanted CID is disconnected and refused, and
 * the fetch fails; an honest peer's block is returned; a peer sending a malformed want is dropped.
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { generateKeyPair } from '@libp2p/crypto/keys';
import type { Stream } from '@libp2p/interface';
import { tcp } from '@libp2p/tcp';
import { createLibp2p, type Libp2p } from 'libp2p';
import pino from 'pino';
import { BLOCKEXC_PROTOCOL } from '../../src/blockexc.ts';
import { BlockStore } from '../../src/blockstore.ts';
import { BLOCK_CODEC, cidOf, cidOfDigest, cidText, ROOT_CODEC } from '../../src/cid.ts';
import { parseConfig } from '../../src/config.ts';
import { retryWait, StorageNetwork } from '../../src/node.ts';

const dir = mkdtempSync(join(tmpdir(), 'storage-blockexc-'));
const log = pino({ level: 'silent' });
after(() => rmSync(dir, { recursive: true, force: true }));

/** What the test peer answers to every want. */
let reply: (stream: Stream) => void = () => {};

function u32(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n, true);
  return b;
}

/** A storage node on loopback with its own repository folder. */
async function storageNode(name: string): Promise<StorageNetwork> {
  const cfg = await parseConfig(
    JSON.stringify({ 'data-dir': name, 'listen-ip': '127.0.0.1', 'disc-port': 0, 'no-bootstrap-node': true }),
    dir,
  );
  const store = new BlockStore(join(dir, name, 'repo'), 1 << 20);
  return StorageNetwork.start(cfg, await generateKeyPair('secp256k1'), store, log);
}

/** A bare libp2p peer (TCP, noise, yamux) that plays the other side by hand. */
async function rawPeer(): Promise<Libp2p> {
  return createLibp2p({
    privateKey: await generateKeyPair('secp256k1'),
    addresses: { listen: ['/ip4/127.0.0.1/tcp/0'] },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
  });
}

/** Serves the block exchange on `peer`: reads the wants to their end, then `answer`s. */
async function answerWith(peer: Libp2p, answer: (stream: Stream) => void): Promise<void> {
  await peer.handle(BLOCKEXC_PROTOCOL, async (stream: Stream) => {
    for await (const _ of stream) {
      // the wants are not looked at
    }
    answer(stream);
  });
}

describe('storage block exchange with a misbehaving peer', () => {
  let node: StorageNetwork;
  let peer: Libp2p;

  before(async () => {
    node = await storageNode('n');
    peer = await rawPeer();
    await answerWith(peer, (stream) => reply(stream));
  });
  after(async () => {
    await node.stop();
    await peer.stop();
  });

  const block = Uint8Array.from({ length: 100 }, (_, i) => i);
  const cid = cidOf(BLOCK_CODEC, block);
  const connectPeer = async () => {
    await node.connect(
      peer.peerId.toString(),
      peer.getMultiaddrs().map((a) => a.toString()),
    );
  };

  test('an honest answer is returned', async () => {
    reply = (s) => {
      s.send(u32(101));
      s.send(Uint8Array.of(0, ...block));
      void s.close();
    };
    await connectPeer();
    const [got] = await node.blocks([cid], AbortSignal.timeout(5000));
    assert.deepEqual(got, block);
  });

  test('a block that does not hash to its CID: the peer is dropped and refused, the fetch fails', async () => {
    reply = (s) => {
      s.send(u32(101));
      s.send(Uint8Array.of(0, ...block.map((x) => x ^ 1)));
      void s.close();
    };
    await assert.rejects(node.blocks([cid], AbortSignal.timeout(5000)), /No connected peer/);
    assert.equal(node.libp2p.getPeers().length, 0);
    await assert.rejects(connectPeer(), /refused: it sent bad data/);
  });
});

describe('storage block exchange: frames checked before allocation', () => {
  let node: StorageNetwork;
  let peer: Libp2p;
  before(async () => {
    node = await storageNode('m');
    peer = await rawPeer();
    // a length prefix of 4 GiB − 1 and nothing behind it
    await answerWith(peer, (stream) => {
      stream.send(u32(0xffffffff));
      void stream.close();
    });
  });
  after(async () => {
    await node.stop();
    await peer.stop();
  });

  test('an oversized answer frame drops the peer', async () => {
    await node.connect(
      peer.peerId.toString(),
      peer.getMultiaddrs().map((a) => a.toString()),
    );
    const cid = cidOf(BLOCK_CODEC, Uint8Array.of(1));
    await assert.rejects(node.blocks([cid], AbortSignal.timeout(5000)), /No connected peer/);
    assert.equal(node.libp2p.getPeers().length, 0);
  });

  test('a malformed want sent to the node gets the sender disconnected', async () => {
    const other = await rawPeer();
    try {
      const stream = await other.dialProtocol(node.libp2p.getMultiaddrs()[0]!, BLOCKEXC_PROTOCOL);
      stream.send(u32(3));
      stream.send(Uint8Array.of(9, 9, 9));
      await stream.close().catch(() => {});
      for (let i = 0; i < 50 && other.getPeers().length > 0; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(other.getPeers().length, 0);
    } finally {
      await other.stop();
    }
  });
});

describe('storage block exchange: local failures are not blamed on the asking peer', () => {
  let node: StorageNetwork;
  before(async () => {
    node = await storageNode('l');
  });
  after(async () => {
    await node.stop();
  });

  test('a leaves list too large to send is answered "don\'t have"; the peer stays connected', async () => {
    // more leaves than one frame holds (a dataset of 1-byte blocks would have them)
    const treeCid = cidOfDigest(ROOT_CODEC, new Uint8Array(32).fill(7));
    writeFileSync(join(dir, 'l', 'repo', 'trees', cidText(treeCid)), new Uint8Array(16 * 1024 * 1024 + 32));
    const other = await rawPeer();
    try {
      const stream = await other.dialProtocol(node.libp2p.getMultiaddrs()[0]!, BLOCKEXC_PROTOCOL);
      const want = Uint8Array.from([2, ...treeCid.bytes]);
      stream.send(u32(want.length));
      stream.send(want);
      await stream.close();
      const got: number[] = [];
      for await (const chunk of stream) got.push(...chunk.subarray());
      assert.deepEqual(got, [1, 0, 0, 0, 1], "one answer frame: don't have");
      assert.equal(other.getPeers().length, 1, 'the asking peer is not disconnected');
    } finally {
      await other.stop();
    }
  });
});

describe('storage fetch retries', () => {
  test('a retry wait leaves no abort listener on the fetch deadline', async () => {
    const deadline = new AbortController();
    for (let i = 0; i < 2; i++) await retryWait(deadline.signal);
    assert.equal(getEventListeners(deadline.signal, 'abort').length, 0);
    const waiting = retryWait(deadline.signal);
    deadline.abort(new Error('deadline'));
    await assert.rejects(waiting, (e: Error) => /deadline/.test(String(e.cause)));
    await assert.rejects(
      retryWait(deadline.signal),
      (e: Error) => /deadline/.test(String(e.cause)),
      'an aborted deadline ends the wait at once',
    );
  });
});
