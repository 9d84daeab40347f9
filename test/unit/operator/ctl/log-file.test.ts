/** The daemon log's size rotation and retention (operator.md §1.2, `logging:` of `daemon/config.yaml`). */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loggingConfig, RotatingLog } from '../../../../src/operator/ctl/log-file.ts';

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
