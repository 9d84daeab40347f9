/**
 * What the Blend swarm is given and what it reports: its members, the check of received messages
 * (the caller's, which knows the message format and the proofs), its settings and events.
 */
import type { Multiaddr } from '@multiformats/multiaddr';
import type { ExpectedMessageRange } from './connection-monitor.ts';

/** A core node of an epoch's membership: its peer id (the SDP provider id) and its locators. */
export interface BlendMember {
  readonly peerId: string;
  readonly addresses: readonly Multiaddr[];
}

/** Why a core peer was found spammy (F `SpamReason::as_str`). */
export type SpamReason =
  | 'undeserializable_message'
  | 'duplicate_message'
  | 'invalid_header_signature'
  | 'invalid_proof_of_quota'
  | 'too_many_messages';

/** The outcome of checking a message's public header (F `verify_header_signature`, `verify_proof_of_quota`). */
export type VerifyOutcome = 'valid' | 'invalid_header_signature' | 'invalid_proof_of_quota';

/**
 * The caller's check of received messages, in F's two steps: the id first (cheap, before any proof is
 * checked, so duplicates are recognised without verifying them), then the public header.
 */
export interface BlendMessageValidator {
  /** The message's id (its PoQ key nullifier) when the bytes decode as a message, else null. */
  messageId(message: Uint8Array): string | null;
  /** The signature and the proof of quota, against the verifier of `epoch`. */
  verify(message: Uint8Array, ctx: { readonly from: string; readonly epoch: number }): Promise<VerifyOutcome>;
}

export interface ConnectionMonitorSettings {
  /** Length of an observation window. */
  readonly windowMs: number;
  /** Messages expected from one core peer per window. */
  readonly expected: ExpectedMessageRange;
}

export interface BlendSwarmOptions {
  /** The 32-byte Ed25519 seed of `blend.non_ephemeral_signing_key_id`: the swarm's identity. */
  readonly signingKeySeed: Uint8Array;
  /** `blend.core.backend.listening_address` (a QUIC v1 address). */
  readonly listenAddress: Multiaddr;
  /** `blend.common.protocol_name`. */
  readonly protocolName: string;
  /** The size of every Blend message of the deployment; a frame of any other length is refused. */
  readonly messageBytes: number;
  readonly validator: BlendMessageValidator;
  /** The membership of the current epoch and its number. */
  readonly membership: readonly BlendMember[];
  readonly epoch: number;
  /** Below this membership size no connection is made nor accepted. */
  readonly minimumNetworkSize: number;
  /** `core_peering_degree`: keep at least `start` healthy core peers, never more than `end`. */
  readonly corePeeringDegree: { readonly start: number; readonly end: number };
  /** `max_dial_attempts_per_peer`. */
  readonly maxDialAttemptsPerPeer: number;
  /** `peering_degree_check_interval`: null for none. */
  readonly peeringDegreeCheckIntervalMs: number | null;
  /** `max_edge_node_incoming_connections`. */
  readonly maxEdgeNodeIncomingConnections: number;
  /** `edge_node_connection_timeout`. */
  readonly edgeNodeConnectionTimeoutMs: number;
  /** `max_dial_attempts_per_peer_per_message` of sends as an edge node. */
  readonly edgeMaxDialAttemptsPerPeer: number;
  /** Per-connection message counting; null to count nothing (F 0.3.1 takes no action on it). */
  readonly connectionMonitor: ConnectionMonitorSettings | null;
  /** Base of the redial backoff: attempt n is made base·2^(n-1) after the failure of n-1 (F: 1 s). */
  readonly redialBaseMs?: number;
  /** Wait before dialling the whole membership again once every member failed (F: 1 min). */
  readonly fullMembershipRetryMs?: number;
}

export interface MessageContext {
  /** Received on an edge node's connection (then relayed to all core peers) rather than a core peer's. */
  readonly fromEdge: boolean;
  /** The epoch whose membership and verifier the message was checked against. */
  readonly epoch: number;
}

export interface CorePeerInfo {
  readonly peerId: string;
  readonly healthy: boolean;
}

export interface BlendSwarmEvents {
  /** A verified message seen for the first time (already relayed to the core peers). */
  message: [message: Uint8Array, fromPeer: string, ctx: MessageContext];
  /** A core peer was blocked: disconnected, never dialled again, its connections refused. */
  'peer-blocked': [peer: string, reason: SpamReason];
  /** A core peer sent fewer messages than expected in a window. */
  'peer-unhealthy': [peer: string];
  /** A core peer found unhealthy is within the expected range again. */
  'peer-healthy': [peer: string];
  /** A core connection of the current epoch was negotiated. */
  'peer-connected': [peer: string];
  /** A core peer of the current epoch disconnected. */
  'peer-disconnected': [peer: string];
}
