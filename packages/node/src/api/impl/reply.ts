/** Replies of the handlers: a value serialised as compact JSON with exact u64 values. */
import { stringifyJson } from '@logos-ts/shared/json';
import type { ApiReply } from '../types.ts';

export const json = (v: unknown): ApiReply => ({ body: stringifyJson(v) });

/**
 * A JSON body sent as `text/plain; charset=utf-8`, as several reference endpoints answer (their bodies
 * are serialised by hand: `nodes/api-common/src/bodies/wallet.rs`).
 */
export const jsonAsText = (v: unknown, status?: number): ApiReply => ({
  body: stringifyJson(v),
  contentType: 'text/plain; charset=utf-8',
  ...(status !== undefined ? { status } : {}),
});
