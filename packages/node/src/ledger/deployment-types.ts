/**
 * The types of a deployment (src/ledger/deployment.ts parses them from a deployment file), in a file of
 * their own so that the genesis builders (genesis.ts, genesis-block.ts), which the parser uses, can name
 * them without an import circle.
 */
import type { Block } from '../block/block.ts';
import type { Fr } from '../crypto/field.ts';
import type { Locator } from '../mantle/locator.ts';
import type { LedgerConfig } from './parameters.ts';

export interface GenesisNote {
  readonly value: bigint;
  readonly pk: Fr;
}

export interface GenesisDeclaration {
  readonly locators: readonly Locator[];
  readonly provider_id: Uint8Array;
  readonly zk_id: Fr;
  /** Index into `notes` of the service note the declaration locks. */
  readonly note_index: number;
}

export interface GenesisSpec {
  readonly chain_id: string;
  /** Unix seconds; null means "when the node first starts" (a fresh local devnet). */
  readonly genesis_time: number | null;
  readonly epoch_nonce: Fr;
  readonly notes: readonly GenesisNote[];
  readonly declarations: readonly GenesisDeclaration[];
  /**
   * The genesis block as the deployment gives it (the reference's public testnet); the fields above
   * are then read from it. Null: the block is built from the fields above (src/ledger/genesis.ts).
   */
  readonly block: Block | null;
}

/**
 * Whose circuit keys verify this network's proofs: `own` (this project's ceremony, zk/keys) or
 * `reference` (the reference's circuits release, needed to follow the public network).
 */
export type CircuitKeys = 'reference' | 'own';

export interface Deployment {
  readonly name: string;
  /** Test deployments may run with the insecure test proof backend; nothing else may. */
  readonly test: boolean;
  /** The circuit keys the network's proofs are made with (`circuits`, default `own`). */
  readonly circuits: CircuitKeys;
  readonly slot_duration_ms: number;
  /** `mempool.tx_ttl`: how long a transaction stays pending, in ms; null: forever (F default 24 h). */
  readonly mempool: { readonly tx_ttl_ms: number | null };
  /** The peer-to-peer network's protocol ids and gossip topics. */
  readonly network: NetworkNames;
  /** The mix network's deployment settings. */
  readonly blend: BlendDeployment;
  readonly ledger: LedgerConfig;
  readonly genesis: GenesisSpec;
}

/**
 * Protocol ids and gossip topics, all deployment settings in F
 * (`nodes/node/binary/src/config/deployment/settings.yaml`): `network.{kademlia,identify,chain_sync}_protocol_name`,
 * `cryptarchia.gossipsub_protocol` (block proposals) and `mempool.pubsub_topic` (transactions).
 */
export interface NetworkNames {
  readonly kademlia_protocol_name: string;
  readonly identify_protocol_name: string;
  readonly chain_sync_protocol_name: string;
  readonly block_topic: string;
  readonly tx_topic: string;
}

/**
 * The Blend settings a deployment fixes (F: nodes/node/binary/src/config/blend/deployment.rs, the
 * `blend:` section of nodes/node/binary/src/config/deployment/settings.yaml), checked as the reference
 * checks them; the Blend service and its quota and timing rules (src/blend/quota.ts) take this type.
 */
export interface BlendDeployment {
  /** β_c: the layers of a message this node sends (`common.num_blend_layers`). */
  readonly num_blend_layers: number;
  /** Below this many core nodes an epoch runs without mixing (`common.minimum_network_size`, ≥ 2). */
  readonly minimum_network_size: number;
  /** The stream protocol of the Blend swarm (`common.protocol_name`). */
  readonly protocol_name: string;
  /** Extra copies of a data message (`common.data_replication_factor`). */
  readonly data_replication_factor: number;
  /** F_c: cover messages per round (`core.scheduler.cover.message_frequency_per_round`). */
  readonly message_frequency_per_round: number;
  /** Δmax, in rounds (`core.scheduler.delayer.maximum_release_delay_in_rounds`, ≥ 1). */
  readonly maximum_release_delay_in_rounds: number;
  /**
   * Rounds a slot is split into (`core.scheduler.rounds_per_slot`, ≥ 1, dividing the slot's
   * milliseconds). Not a reference setting (its round is one slot, the default): this project's
   * devnet uses it (docs/design/fidelity.md "Blend rounds shorter than a slot").
   */
  readonly rounds_per_slot?: number;
  /** `core.minimum_messages_coefficient` (≥ 1): the lower bound of a peer's expected traffic. */
  readonly minimum_messages_coefficient: number;
  /** `core.normalization_constant` (≥ 0): scales the expected traffic of a peer. */
  readonly normalization_constant: number;
  /** `core.activity_threshold_sensitivity`. */
  readonly activity_threshold_sensitivity: number;
}
