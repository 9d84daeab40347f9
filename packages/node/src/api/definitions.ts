/**
 * The API's route table: each endpoint once, with its method, path, parameters, body and response
 * schemas, merged from one file per namespace (routes/*.ts). It has no handlers and no I/O, so that
 * the server (impl/ adds the handlers), the OpenAPI document (openapi.ts) and the typed client
 * (client/) all read the same table. The order of the namespaces is the order of the document.
 */
import type { RouteDef } from './route-def.ts';
import { adminRoutes } from './routes/admin.ts';
import { blendRoutes } from './routes/blend.ts';
import { channelRoutes } from './routes/channel.ts';
import { cryptarchiaRoutes } from './routes/cryptarchia.ts';
import { leaderRoutes } from './routes/leader.ts';
import { mantleRoutes } from './routes/mantle.ts';
import { networkRoutes } from './routes/network.ts';
import { nodeRoutes } from './routes/node.ts';
import { powRoutes } from './routes/pow.ts';
import { sdpRoutes } from './routes/sdp.ts';
import { walletRoutes } from './routes/wallet.ts';

export {
  ID_PARAM_PATTERN,
  type PathParam,
  type QueryParam,
  type RouteDef,
  routeMutates,
} from './route-def.ts';
export { TracingFilter } from './routes/admin.ts';
export { JoinBlend } from './routes/blend.ts';
export { ChannelDepositRequest } from './routes/channel.ts';
export {
  Block,
  BlockLine,
  ChainPhase,
  ConsensusState,
  CryptarchiaInfo,
  Header,
  LedgerEvents,
  LibLine,
  SignedTransaction,
  TimeInfo,
} from './routes/cryptarchia.ts';
export { AgedNotes, ClaimableVouchers, LeaderClaim, VoucherStatus, WalletVouchers } from './routes/leader.ts';
export { Channel, GasPrices } from './routes/mantle.ts';
export { DialPeerRequest, NetworkInfo } from './routes/network.ts';
export { VersionInfo } from './routes/node.ts';
export { ClaimableRewards, PowClaimRequest, PowClaimResult, PowStatus } from './routes/pow.ts';
export {
  ActivityMetadata,
  Declaration,
  DeclarationMessage,
  Declarations,
  SdpSubmission,
} from './routes/sdp.ts';
export { FundedTx, WalletBalance, ZkSignatureJson } from './routes/wallet.ts';

export const API = {
  ...nodeRoutes,
  ...cryptarchiaRoutes,
  ...mantleRoutes,
  ...channelRoutes,
  ...sdpRoutes,
  ...networkRoutes,
  ...blendRoutes,
  ...leaderRoutes,
  ...powRoutes,
  ...adminRoutes,
  ...walletRoutes,
} as const satisfies Record<string, RouteDef>;

export type Api = typeof API;
export type OperationId = keyof Api;
