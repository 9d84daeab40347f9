/** The daemon log's size rotation and retention (operator.md §1.2, `logging:` of `daemon/config.yaml`). */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loggingConfig, RotatingLog } from '../../src/log-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'ctl-log-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('defaults and validation of logging:', () => {
  assert.deepEqual(loggingConfig({}), {
    enabled: true,
    file: 'daemon.log',
    maxSizeMb: 10,
    maxFiles: 5,
    console: false,
  });
  assert.throws(() => loggingConfig({ logging: { max_size_mb: 0 } }), /logging.max_size_mb/);
  assert.throws(() => loggingConfig({ logging: { file: '../x.log' } }), /logging.file/);
});

test('past max_size_mb the file is rotated; only max_files rotated files are kept', async () => {
  // 1 KiB limit (0.0009765625 MiB), 2 rotated files kept
  const log = new RotatingLog(dir, loggingConfig({ logging: { max_size_mb: 1 / 1024, max_files: 2 } }));
  const line = `${'x'.repeat(399)}\n`;
  for (let i = 0; i < 20; i++) log.write(line);
  await new Promise<void>((r) => log.end(() => r()));
  const files = readdirSync(dir).sort();
  assert.ok(files.includes('daemon.log'));
  const rotated = files.filter((f) => f.startsWith('daemon_'));
  assert.equal(rotated.length, 2, files.join(','));
  for (const f of [...rotated, 'daemon.log']) assert.ok(readFileSync(join(dir, f)).length <= 1024, f);
});

test('a failed write or rotation loses lines but never errors the stream; the log is reopened after', async () => {
  const d = mkdtempSync(join(tmpdir(), 'ctl-log-fail-'));
  const log = new RotatingLog(d, loggingConfig({ logging: { max_size_mb: 1 / 1024, max_files: 2 } }));
  const errors: Error[] = [];
  log.on('error', (e) => errors.push(e));
  const line = `${'y'.repeat(399)}\n`;
  log.write(line);
  log.write(line);
  // the folder vanishes: the rotation's rename fails, and so does the reopen, then every write
  rmSync(d, { recursive: true, force: true });
  for (let i = 0; i < 5; i++) log.write(line);
  await new Promise((r) => setImmediate(r));
  mkdirSync(d);
  log.write('after\n');
  await new Promise<void>((r) => log.end(() => r()));
  assert.deepEqual(errors, []);
  assert.equal(readFileSync(join(d, 'daemon.log'), 'utf8'), 'after\n');
  rmSync(d, { recursive: true, force: true });
});
