/** The IBD progress bar: its text, and that it draws on a terminal only, clearing itself at the end. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ibdProgressLine, showIbdProgress } from '../../../src/cli/progress.ts';

test('the bar shows height, target, share, rate and time left', () => {
  assert.equal(
    ibdProgressLine({ applied: 1000, targetHeight: 4000, height: 1000, rate: 250, etaS: 12 }, 20),
    'IBD [#####---------------] 1000/4000 blocks 25%  250.0 blocks/s  12 s left',
  );
  assert.equal(
    ibdProgressLine({ applied: 0, targetHeight: 0, height: 0, rate: 0, etaS: null }, 10),
    'IBD [----------] 0/0 blocks 0%  0.0 blocks/s  time left unknown',
  );
  assert.match(
    ibdProgressLine({ applied: 1, targetHeight: 90_000, height: 10, rate: 2, etaS: 45_000 }),
    /12\.5 h left$/,
  );
});

test('drawn on a terminal while IBD runs, cleared after; nothing on another stream', async () => {
  const written: string[] = [];
  const tty = {
    isTTY: true,
    columns: 100,
    write: (s: string) => written.push(s),
  } as unknown as NodeJS.WriteStream;
  let running = true;
  const stop = showIbdProgress(
    () => (running ? { applied: 5, targetHeight: 10, height: 5, rate: 1, etaS: 5 } : null),
    tty,
  );
  await new Promise((r) => setTimeout(r, 1100));
  assert.ok(written.some((w) => w.startsWith('\rIBD [') && w.endsWith('\x1b[K')));
  running = false;
  await new Promise((r) => setTimeout(r, 1100));
  assert.equal(written.at(-1), '\r\x1b[K');
  stop();
  const pipe: string[] = [];
  showIbdProgress(() => ({ applied: 1, targetHeight: 2, height: 1, rate: 1, etaS: 1 }), {
    isTTY: false,
    write: (s: string) => pipe.push(s),
  } as unknown as NodeJS.WriteStream)();
  assert.deepEqual(pipe, []);
});
