/**
 * Child process of the damaged-file tests: `node --import tsx store-opener.ts DIR` opens the store in DIR,
 * prints `opened <tip height>` and closes it, or prints `error <code> <message>` and exits with code 3.
 * A store that crashes lmdb kills only this process.
 */
import { StorageError } from '../../../src/storage/errors.ts';
import { openStore } from '../../../src/storage/open.ts';

const dir = process.argv[2];
if (dir === undefined) throw new Error('usage: store-opener.ts DIR');
try {
  const store = await openStore(dir, { onWarning: () => {} });
  process.stdout.write(`opened ${store.chain.tipHeight() ?? -1n}\n`);
  await store.close();
} catch (e) {
  const code = e instanceof StorageError ? e.code : 'OTHER';
  process.stdout.write(`error ${code} ${(e as Error).message}\n`);
  process.exit(3);
}
