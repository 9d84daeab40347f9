/**
 * The configuration the node's transaction-building operations read: the `sdp` section (the node's
 * declaration id and the key and fee cap its SDP transactions are funded with) and the two `blend` key
 * ids the node declares itself with. F: `services/sdp/src/{lib.rs,wallet.rs}` `SdpSettings`,
 * `SdpWalletConfig`; `services/blend/src/lib.rs` (`non_ephemeral_signing_key_id`, `core.zk.secret_key_kms_id`).
 * The leader's claim settings are `cryptarchia.leader.wallet` (chain/config.ts).
 */

import { hex64, mapping, u64 } from '@logos-ts/shared/config-fields';
import type { BlendSection } from '../blend/index.ts';

export interface SdpSection {
  /** The node's declaration id (hex) used until one is set through the API. */
  readonly declaration_id: string | null;
  readonly wallet: {
    /** Hard cap on the fee of the node's SDP transactions. */
    readonly max_tx_fee: bigint;
    /** The ZK key (hex) whose notes pay the fees of SDP transactions; change returns to it. */
    readonly funding_pk: string | null;
  };
}

/** The key store's keys by id (`kms.backend.keys`), as this service reads them. */
export type KmsKeys = Readonly<Record<string, { readonly kind: string; readonly secret: string }>>;

/** The `blend` keys the node declares itself as a Blend core node with (KMS key ids; blend/config.ts). */
export type BlendKeysSection = Pick<
  BlendSection,
  'non_ephemeral_signing_key_id' | 'core_zk_secret_key_kms_id'
>;

// inferred: F requires the sdp wallet settings; absent, the fee cap is u64::MAX as for the leader's
// claims and SDP requests fail naming the missing funding key (docs/design/fidelity.md)
export const DEFAULT_SDP: SdpSection = {
  declaration_id: null,
  wallet: { max_tx_fee: 0xffff_ffff_ffff_ffffn, funding_pk: null },
};
const optHex = (v: unknown, path: string): string | null => (v == null ? null : hex64(v, path));

/** Reads `sdp` (its key layout is checked with the other sections, node/config.ts). */
export function parseSdpSection(raw: unknown): SdpSection {
  const sdp = mapping(raw, 'sdp');
  const wallet = mapping(sdp.wallet, 'sdp.wallet');
  return {
    declaration_id: optHex(sdp.declaration_id, 'sdp.declaration_id'),
    wallet: {
      max_tx_fee: u64(wallet.max_tx_fee, DEFAULT_SDP.wallet.max_tx_fee, 'sdp.wallet.max_tx_fee'),
      funding_pk: optHex(wallet.funding_pk, 'sdp.wallet.funding_pk'),
    },
  };
}
