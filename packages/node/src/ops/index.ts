/**
 * The node's transaction-building operations (leader reward claims, SDP messages, Blend join, channel
 * deposits) on top of the wallet and the mempool; index.ts is the only way in.
 */
export {
  type BlendKeysSection,
  DEFAULT_SDP,
  type KmsKeys,
  parseSdpSection,
  type SdpSection,
} from './config.ts';
export { OpsError, type OpsErrorCode } from './errors.ts';
export type {
  AgedNote,
  AgedNotes,
  ChannelDepositRequest,
  ClaimableVouchers,
  IOps,
  SdpSubmission,
  WalletVouchers,
} from './interface.ts';
export { type DeclarationStore, type OpsConfig, type OpsDeps, OpsService } from './ops-service.ts';
export type { OwnVoucher, VoucherStatus, VoucherStore, VoucherView } from './vouchers.ts';
