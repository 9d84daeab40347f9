/**
 * The storage module's argument checks refuse with the shared `ArgumentError` (code `MODULE_ARGUMENT`)
 * and a message naming the argument; a bad CID keeps libstorage's `<context>: cannot parse cid: <text>`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ArgumentError } from '@logos-ts/shared/module-args';
import { boolArg, chunkSizeArg, cidArg, nonEmptyArg, stringListArg, textArg } from '../../src/args.ts';

const refused = (f: () => unknown, message: string): void =>
  assert.throws(
    f,
    (e: unknown) => e instanceof ArgumentError && e.code === 'MODULE_ARGUMENT' && e.message === message,
  );

test('bad arguments are ArgumentErrors naming the argument', () => {
  assert.equal(textArg(12, 'x'), '12');
  refused(() => textArg(null, 'x'), 'Missing or invalid argument "x" (a string is required).');
  refused(() => nonEmptyArg('', 'filePath'), 'Argument "filePath" must not be empty.');
  assert.equal(boolArg('true', 'local'), true);
  refused(() => boolArg('yes', 'local'), 'Missing or invalid argument "local" (true or false is required).');
  assert.equal(chunkSizeArg('1024', 65536), 1024);
  assert.throws(() => chunkSizeArg(0, 65536), ArgumentError);
  assert.deepEqual(stringListArg('["a","b"]', 'addrs'), ['a', 'b']);
  refused(
    () => stringListArg('[1]', 'addrs'),
    'Invalid argument "addrs" (a JSON array of strings is required).',
  );
  refused(() => cidArg('zzz', 'Failed to fetch'), 'Failed to fetch: cannot parse cid: zzz');
});
