/**
 * The types the API's handlers are written against: the context the node gives them (`ApiContext`),
 * what they answer (`ApiReply`, `ApiStream`), and the handler types derived from the route table, which
 * receive their path parameters, query and body already decoded (decode.ts).
 */
import type { IBlend } from '../blend/index.ts';
import type { IChain, SlotClock } from '../chain/index.ts';
import type { Deployment } from '../ledger/deployment.ts';
import type { IMempool } from '../mempool/index.ts';
import type { INetwork } from '../network/index.ts';
import type { IOps } from '../ops/index.ts';
import type { IPow } from '../pow/index.ts';
import type { IWallet } from '../wallet/index.ts';
import type { Infer, Schema } from './json-schema.ts';
import type { PathParam, QueryParam, RouteDef } from './route-def.ts';
import type { KeysReloaded } from './routes/admin.ts';
import type { ChainPhase } from './routes/cryptarchia.ts';

export type Phase = Infer<typeof ChainPhase>;

export interface ApiContext {
  /** The commit and tag of the code the node runs (null when unknown). */
  readonly build: { readonly commit: string | null; readonly tag: string | null };
  /** Replaces the log filter: target (module) → level; `*` is the default level. */
  setLogFilter(filters: Readonly<Record<string, string>>): void;
  /** Reads the node's keys from its config again and applies them (absent: the node cannot). */
  reloadKeys?(): Infer<typeof KeysReloaded>;
  /** The encoded checkpoint of the LIB; undefined while the node holds no state of it (absent: the node cannot). */
  checkpoint?(): Uint8Array | undefined;
  readonly chain: IChain;
  readonly clock: SlotClock;
  readonly deployment: Deployment;
  readonly mempool: IMempool;
  /** The wallet: notes, funding, signing with the key store (the `/wallet/*` routes). */
  readonly wallet: IWallet;
  /** Leader reward claims, SDP messages, Blend join and channel deposits built with the node's wallet. */
  readonly ops: IOps;
  /** The proof-of-work service (the `/pow/*` routes). */
  readonly pow: IPow;
  /** The peer-to-peer network (the `/network/*` routes). */
  readonly network: INetwork;
  /** The Blend mix network (the `/blend/*` routes but join, which is an SDP declaration). */
  readonly blend: IBlend;
  phase(): Phase;
}

export interface ApiReply {
  readonly status?: number;
  /** The body (JSON already serialised), as text or bytes. */
  readonly body: string | Uint8Array;
  readonly contentType?: string;
}

/** An NDJSON stream: `run` writes lines until it is done or `signal` aborts (client gone). */
export interface ApiStream {
  readonly ndjson: true;
  run(write: (line: string) => Promise<void>, signal: AbortSignal): Promise<void>;
}

export type HandlerResult = ApiReply | ApiStream | Promise<ApiReply | ApiStream>;

// ---- decoded arguments, derived from a definition

type PathParamNames<P extends string> = P extends `${string}{${infer N}}${infer Rest}`
  ? N | PathParamNames<Rest>
  : never;

type PathOut<D extends RouteDef, K extends string> =
  D['params'] extends Readonly<Record<K, PathParam<infer O>>> ? O : Uint8Array;

type QueryOut<Q> = {
  readonly [K in keyof Q]: Q[K] extends QueryParam<unknown, infer R, infer O>
    ? R extends true
      ? O
      : O | undefined
    : never;
};

/** What a handler of `D` receives: path parameters, query and body, decoded through its schemas. */
export interface HandlerArgs<D extends RouteDef> {
  readonly params: { readonly [K in PathParamNames<D['path']>]: PathOut<D, K> };
  readonly query: D['query'] extends object ? QueryOut<D['query']> : Record<never, never>;
  readonly body: D['body'] extends Schema<infer B>
    ? D['optionalBody'] extends true
      ? B | undefined
      : B
    : undefined;
}

export type Handler<D extends RouteDef, C = ApiContext> = (ctx: C, args: HandlerArgs<D>) => HandlerResult;

/** The handlers of a namespace's routes, each given only the parts of the context `C` it needs. */
export type Handlers<R extends Record<string, RouteDef>, C = ApiContext> = {
  readonly [K in keyof R]: Handler<R[K], C>;
};

/** Decoded arguments with their types erased, as the server passes them. */
export interface RouteArgs {
  readonly params: Readonly<Record<string, unknown>>;
  readonly query: Readonly<Record<string, unknown>>;
  readonly body?: unknown;
}

/** A served route: a definition and its handler. */
export interface ServerRoute {
  readonly operationId: string;
  readonly def: RouteDef;
  readonly handle: (ctx: ApiContext, args: RouteArgs) => HandlerResult;
}
