/**
 * Request decoding through the route table (src/api/decode.ts): what each handler receives, and the
 * reference's rejections made in one place for every route (plain-text 400 for a path or query,
 * 415 for a body that is not JSON, 422 for JSON of the wrong shape; `{code, message}` 400 for a
 * `blocks_range` value out of its set, as that endpoint answers).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LogosError } from '@logos-ts/shared/errors';
import { decodeRequest, parseJsonBody, type RawRequest } from '../../../src/api/decode.ts';
import { API } from '../../../src/api/definitions.ts';
import { ApiError, Rejection } from '../../../src/api/errors.ts';

const req = (r: Partial<RawRequest>): RawRequest => ({
  params: {},
  query: {},
  contentType: undefined,
  body: undefined,
  ...r,
});

function rejects(
  f: () => unknown,
  status: number,
  message: string | RegExp,
  kind: typeof Rejection | typeof ApiError = Rejection,
): void {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof kind && e instanceof LogosError);
    assert.equal((e as Rejection | ApiError).status, status);
    if (typeof message === 'string') assert.equal((e as Error).message, message);
    else assert.match((e as Error).message, message);
    return true;
  });
}

describe('path parameters', () => {
  test('a 32-byte id decodes to its bytes (0x and upper case allowed); anything else is a plain-text 400', () => {
    const id = `0x${'AB'.repeat(32)}`;
    const args = decodeRequest(API.cryptarchiaBlock, req({ params: { id } }));
    assert.deepEqual(args.params.id, new Uint8Array(32).fill(0xab));
    rejects(
      () => decodeRequest(API.channel, req({ params: { id: '0' } })),
      400,
      'Invalid URL: Cannot parse `id` with value `0`: invalid hex string',
    );
    rejects(
      () => decodeRequest(API.channel, req({ params: { id: '' } })),
      400,
      'Invalid URL: Cannot parse `id` with value ``: expected 32 bytes, got 0',
    );
  });
});

describe('query', () => {
  test('u64 values as bigint, optional ones undefined, the first of a repeated one', () => {
    const args = decodeRequest(
      API.cryptarchiaBlocks,
      req({ query: { slot_from: ['18446744073709551615', '1'], slot_to: '0', unknown: 'ignored' } }),
    );
    assert.deepEqual(args.query, { slot_from: 18446744073709551615n, slot_to: 0n });
    assert.deepEqual(decodeRequest(API.cryptarchiaHeaders, req({})).query, {
      from: undefined,
      to: undefined,
    });
  });

  test('a missing required field or a bad u64: plain-text 400 in serde words', () => {
    rejects(
      () => decodeRequest(API.cryptarchiaBlocks, req({ query: { slot_to: '1' } })),
      400,
      'Failed to deserialize query string: missing field `slot_from`',
    );
    for (const v of ['-1', '1.0', '18446744073709551616', '', ' 1']) {
      rejects(
        () => decodeRequest(API.cryptarchiaBlocks, req({ query: { slot_from: v, slot_to: '1' } })),
        400,
        'Failed to deserialize query string: slot_from: invalid digit found in string',
      );
    }
  });

  test('blocks_range: a value out of its set is a `{code, message}` 400, as before', () => {
    rejects(
      () => decodeRequest(API.cryptarchiaBlocksRange, req({ query: { order: 'sideways' } })),
      400,
      'invalid order sideways',
      ApiError,
    );
    const args = decodeRequest(
      API.cryptarchiaBlocksRange,
      req({ query: { block_filter: 'immutable_only' } }),
    );
    assert.equal(args.query.block_filter, 'immutable_only');
  });
});

describe('body', () => {
  const put = (body: string, contentType = 'application/json') =>
    decodeRequest(API.adminTracingFilter, req({ contentType, body: parseJsonBody(body) }));

  test('decoded through the schema: levels in any case or 1..5, named in lower case', () => {
    assert.deepEqual(put('{"filters":{"*":"INFO","chain":5,"api":"2"}}').body, {
      filters: { '*': 'info', chain: 'trace', api: 'warn' },
    });
  });

  test('not application/json: 415; not JSON: 400; the wrong shape: 422 (plain text)', () => {
    rejects(
      () => put('{"filters":{}}', 'text/plain'),
      415,
      'Expected request with `Content-Type: application/json`',
    );
    rejects(() => put('{"filters":{}}', ''), 415, /Content-Type: application\/json/);
    rejects(() => parseJsonBody('{"filters":'), 400, /^Failed to parse the request body as JSON: /);
    const shape = 'Failed to deserialize the JSON body into the target type: ';
    rejects(() => put('{"nope":1}'), 422, `${shape}missing field \`filters\``);
    rejects(() => put('{"filters":[]}'), 422, `${shape}filters: expected an object, got an array`);
    rejects(
      () => put('{"filters":{"*":"loud"}}'),
      422,
      new RegExp(`^${shape}filters\\["\\*"\\]: expected a log level`),
    );
    rejects(() => put('{"filters":{"*":1.0}}'), 422, /filters\["\*"\]: expected a log level/);
  });
});

describe('an optional, lenient body (POST /pow/claim)', () => {
  test('none, a wrong shape or any content type count as no body; a fitting one is decoded', () => {
    const claim = API.powClaim;
    assert.equal(decodeRequest(claim, req({})).body, undefined);
    assert.equal(decodeRequest(claim, req({ contentType: 'text/plain', body: 'hello' })).body, undefined);
    assert.equal(
      decodeRequest(claim, req({ contentType: 'application/json', body: { other: 1 } })).body,
      undefined,
    );
    assert.equal(
      decodeRequest(claim, req({ contentType: 'application/json', body: { claim_address: 7 } })).body,
      undefined,
    );
    assert.deepEqual(
      decodeRequest(claim, req({ contentType: 'text/plain', body: { claim_address: 'ab' } })).body,
      {
        claim_address: 'ab',
      },
    );
    // A route whose body is required still refuses the same input.
    rejects(
      () => decodeRequest(API.blendJoin, req({ contentType: 'application/json', body: { other: 1 } })),
      422,
      /missing field/,
    );
  });
});
