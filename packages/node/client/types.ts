/** The API's data types, as the client returns them (u64 values as bigint). */
import type * as D from '../src/api/definitions.ts';
import type { Infer } from '../src/api/json-schema.ts';

export type VersionInfo = Infer<typeof D.VersionInfo>;
export type ConsensusState = Infer<typeof D.ConsensusState>;
export type ChainPhase = Infer<typeof D.ChainPhase>;
export type CryptarchiaInfo = Infer<typeof D.CryptarchiaInfo>;
export type TimeInfo = Infer<typeof D.TimeInfo>;
export type Header = Infer<typeof D.Header>;
export type SignedTransaction = Infer<typeof D.SignedTransaction>;
export type Block = Infer<typeof D.Block>;
export type BlockLine = Infer<typeof D.BlockLine>;
export type LibLine = Infer<typeof D.LibLine>;
export type LedgerEvents = Infer<typeof D.LedgerEvents>;
export type GasPrices = Infer<typeof D.GasPrices>;
export type Channel = Infer<typeof D.Channel>;
export type Declaration = Infer<typeof D.Declaration>;
export type Declarations = Infer<typeof D.Declarations>;
export type TracingFilter = Infer<typeof D.TracingFilter>;
export type WalletBalance = Infer<typeof D.WalletBalance>;
export type FundedTx = Infer<typeof D.FundedTx>;
export type ZkSignature = Infer<typeof D.ZkSignatureJson>;
