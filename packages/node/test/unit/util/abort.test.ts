import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { deadline } from '../../../src/util/abort.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a deadline under a parent signal fires on time although the garbage collector ran', async () => {
  const parent = new AbortController();
  let reason: unknown;
  {
    const d = deadline(150, parent.signal);
    d.signal.addEventListener('abort', () => {
      reason = d.signal.reason;
    });
  }
  for (let i = 0; i < 5; i++) {
    gc();
    await tick(60);
  }
  assert.ok(reason instanceof DOMException, 'aborted by the timer');
  assert.equal((reason as DOMException).name, 'TimeoutError');
});

test("a deadline aborts with its parent's reason, at once when the parent is already aborted", () => {
  const parent = new AbortController();
  const d = deadline(10_000, parent.signal);
  parent.abort(new Error('stopping'));
  assert.equal((d.signal.reason as Error).message, 'stopping');
  d.clear();
  const late = deadline(10_000, parent.signal);
  assert.ok(late.signal.aborted);
  late.clear();
});

test('a cleared deadline never fires', async () => {
  const d = deadline(30);
  d.clear();
  await tick(80);
  assert.equal(d.signal.aborted, false);
});
