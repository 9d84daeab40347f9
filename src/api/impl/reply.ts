/** Replies of the handlers: a value serialised as compact JSON with exact u64 values. */
import { stringifyJson } from '../../codec/json.ts';
import type { ApiReply } from '../types.ts';

export const json = (v: unknown): ApiReply => ({ body: stringifyJson(v) });
