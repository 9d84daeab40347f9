/**
 * The atomic private file writer: mode 600 by default or the caller's mode, bytes as well as text, and
 * its refusals as `FileWriteError`s (an exclusive write over an existing file: `FILE_EXISTS`, the
 * message `<path> exists` that the blockchain module's config calls rely on).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { FileWriteError, writeFileAtomic } from '../../src/atomic-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'atomic-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('text is written with mode 600; bytes with the mode asked for, under the umask', () => {
  const a = join(dir, 'a.txt');
  writeFileAtomic(a, 'one\n', true);
  assert.equal(readFileSync(a, 'utf8'), 'one\n');
  assert.equal(statSync(a).mode & 0o777, 0o600);
  const b = join(dir, 'b.bin');
  writeFileAtomic(b, Uint8Array.of(1, 2, 3), false, 0o644);
  assert.deepEqual([...readFileSync(b)], [1, 2, 3]);
  assert.equal(statSync(b).mode & 0o777, 0o644 & ~process.umask());
});

test('an exclusive write over an existing file is FILE_EXISTS and leaves it and no temporary file', () => {
  const p = join(dir, 'c.txt');
  writeFileAtomic(p, 'first\n', true);
  assert.throws(
    () => writeFileAtomic(p, 'second\n', true),
    (e: unknown) =>
      e instanceof FileWriteError &&
      e.code === 'FILE_EXISTS' &&
      e.message === `${p} exists` &&
      e.meta.path === p,
  );
  assert.equal(readFileSync(p, 'utf8'), 'first\n');
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.endsWith('.tmp')),
    [],
  );
  writeFileAtomic(p, 'third\n', false);
  assert.equal(readFileSync(p, 'utf8'), 'third\n');
});

test('an empty path is FILE_WRITE_FAILED', () => {
  assert.throws(
    () => writeFileAtomic('', 'x', false),
    (e: unknown) =>
      e instanceof FileWriteError && e.code === 'FILE_WRITE_FAILED' && /empty path/.test(e.message),
  );
});
