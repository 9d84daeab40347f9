/**
 * The delivery node key file: created mode 600 and kept across loads; a write that fails part way
 * (a full disk) leaves no key file behind, so the next start creates a whole one.
 */
import assert from 'node:assert/strict';
import fs, { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadNodeKey, NODE_KEY_FILE } from '../../src/node-key.ts';

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });

/** Runs `f` with file writes that store only their first 10 bytes, then fail with ENOSPC. */
async function withFullDisk<T>(f: () => Promise<T>): Promise<T> {
  const { writeSync, writeFileSync } = fs;
  fs.writeSync = ((fd: number, data: Uint8Array | string) => {
    const b = Buffer.from(data as never);
    writeSync(fd, b.subarray(0, 10));
    throw enospc();
  }) as typeof fs.writeSync;
  fs.writeFileSync = ((path: fs.PathOrFileDescriptor, data: string, opts?: fs.WriteFileOptions) => {
    writeFileSync(path, String(data).slice(0, 10), opts);
    throw enospc();
  }) as typeof fs.writeFileSync;
  syncBuiltinESMExports();
  try {
    return await f();
  } finally {
    fs.writeSync = writeSync;
    fs.writeFileSync = writeFileSync;
    syncBuiltinESMExports();
  }
}

describe('delivery node key file', () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'delivery-key-'));
    dirs.push(d);
    return d;
  };
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('created mode 600, 64 hex characters, the same key on the next load', async () => {
    const d = dir();
    const first = await loadNodeKey(null, d);
    const path = join(d, NODE_KEY_FILE);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.match(readFileSync(path, 'utf8'), /^[0-9a-f]{64}\n$/);
    const again = await loadNodeKey(null, d);
    assert.deepEqual(again.secret, first.secret);
    assert.deepEqual(readdirSync(d), [NODE_KEY_FILE], 'no temporary file left');
  });

  test('a write failing part way leaves no key file; the next load creates a whole one', async () => {
    const d = dir();
    await assert.rejects(
      withFullDisk(() => loadNodeKey(null, d)),
      /ENOSPC/,
    );
    assert.deepEqual(readdirSync(d), [], 'neither a partial key nor a temporary file');
    const key = await loadNodeKey(null, d);
    assert.equal(key.secret.length, 32);
    assert.equal(
      readFileSync(join(d, NODE_KEY_FILE), 'utf8'),
      `${Buffer.from(key.secret).toString('hex')}\n`,
    );
  });
});
