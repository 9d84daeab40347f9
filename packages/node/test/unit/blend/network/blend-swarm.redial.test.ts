/**
 * Dialling core peers (F `services/blend/src/core/backends/libp2p/tests/redials.rs`): a member that
 * cannot be reached is tried `max_dial_attempts_per_peer` times with backoff, then another member is
 * dialled; the periodic check dials again when a peer is lost.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { multiaddr } from '@multiformats/multiaddr';
import {
  memberOf,
  RawPeer,
  randomPeerId,
  recordingLogger,
  startSwarm,
  stopAll,
  stopper,
  until,
} from './harness.ts';

// F: redials::core_redial_different_peer_after_redial_limit, core_redial_uses_exponential_backoff
test('an unreachable member is tried its attempts with backoff, then given up; the reachable one is a peer', async () => {
  const live = await startSwarm({ corePeeringDegree: { start: 0, end: 2 } });
  const decoy = await RawPeer.create();
  const { log, lines } = recordingLogger();
  const node = await startSwarm({ corePeeringDegree: { start: 2, end: 2 }, maxDialAttemptsPerPeer: 3 }, log);
  try {
    // A member whose locator answers with another identity: each dial fails at the handshake.
    const port = decoy.host
      .getMultiaddrs()[0]!
      .getComponents()
      .find((c) => c.name === 'udp')!.value;
    const unreachable = {
      peerId: await randomPeerId(),
      addresses: [multiaddr(`/ip4/127.0.0.1/udp/${port}/quic-v1`)],
    };
    const members = [memberOf(node), unreachable, memberOf(live)];
    live.swarm.updateMembership(members, { epoch: 1, transition: false });
    const started = Date.now();
    node.swarm.updateMembership(members, { epoch: 1, transition: false });
    const about = (msg: string) => lines.filter((l) => l.msg === msg && l.peer === unreachable.peerId);
    await until(() => about('blend dial attempts exhausted').length === 1, 6_000, 'attempts exhausted');
    // attempt n+1 is made 2^n backoff units (50 ms here) after attempt n failed
    const attempts = about('blend dialling core peer');
    assert.deepEqual(
      attempts.map((l) => l.attempt),
      [1, 2, 3],
    );
    const gaps = attempts.slice(1).map((l, i) => (l.time as number) - (attempts[i]!.time as number));
    assert.ok(gaps[0]! >= 100 && gaps[1]! >= 200, `gaps ${gaps}`);
    await until(() => node.swarm.corePeers().length === 1, 3_000, 'a core peer');
    assert.deepEqual(node.swarm.corePeers(), [{ peerId: live.swarm.peerId, healthy: true }]);
    assert.ok(live.swarm.corePeers().some((p) => p.peerId === node.swarm.peerId));
    assert.ok(Date.now() - started < 6_000);
    assert.deepEqual(node.swarm.blockedPeers(), []);
  } finally {
    await stopAll([stopper(node), stopper(live), decoy]);
  }
});

// F: redials::core_maintenance_task_dials_to_maintain_peering_degree
test('a lost core peer is replaced by dialling another member', async () => {
  const a = await startSwarm({ corePeeringDegree: { start: 0, end: 2 } });
  const b = await startSwarm({ corePeeringDegree: { start: 0, end: 2 } });
  const node = await startSwarm({
    corePeeringDegree: { start: 1, end: 1 },
    peeringDegreeCheckIntervalMs: 200,
  });
  try {
    const members = [memberOf(node), memberOf(a), memberOf(b)];
    for (const s of [a, b, node]) s.swarm.updateMembership(members, { epoch: 1, transition: false });
    await until(() => node.swarm.corePeers().length === 1, 5_000, 'a first core peer');
    const first = node.swarm.corePeers()[0]!.peerId;
    await (first === a.swarm.peerId ? a : b).swarm.close();
    const other = first === a.swarm.peerId ? b : a;
    await until(
      () => node.swarm.corePeers().some((p) => p.peerId === other.swarm.peerId),
      6_000,
      'the other member dialled',
    );
    // At most one core peer (the degree's end): the lost one is gone.
    assert.deepEqual(
      node.swarm.corePeers().map((p) => p.peerId),
      [other.swarm.peerId],
    );
  } finally {
    await stopAll([stopper(node), stopper(a), stopper(b)]);
  }
});
