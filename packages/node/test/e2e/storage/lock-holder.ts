/**
 * Child process of the lock tests: `node --import tsx lock-holder.ts DIR` takes the lock of DIR, prints
 * `locked <pid>` (or `error <message>`), then holds the lock until killed or its stdin closes.
 */
import { lockDataDir } from '../../../src/storage/lock.ts';

const dir = process.argv[2];
if (dir === undefined) throw new Error('usage: lock-holder.ts DIR');
try {
  const lock = lockDataDir(dir, { onWarning: (m) => process.stdout.write(`warning ${m}\n`) });
  process.stdout.write(`locked ${process.pid}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => {
    lock.release();
    process.exit(0);
  });
} catch (e) {
  process.stdout.write(`error ${(e as Error).message}\n`);
  process.exit(3);
}
