/**
 * `logosctl daemon config set|show` (operator.md §5.2 step 3: `printf '{}\n' | logosctl daemon config set -`;
 * `config_command.cpp` @1a4f56fe): the document is checked before anything is written, unknown keys and
 * bad values are refused with exit 1 and the old file kept, the written file is mode 600.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ctl } from '@logos-ts/test-utils/logosctl';

const dir = mkdtempSync(join(tmpdir(), 'logosctl-cfg-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const setFromStdin = (text: string) => ctl(dir, ['daemon', 'config', 'set', '-'], dir, {}, text);

test('set from stdin, from a file; refusals keep the previous file', async () => {
  const path = join(dir, 'daemon', 'config.yaml');
  const first = await setFromStdin('{}\n');
  assert.equal(first.stdout, `{"path":"${path}","status":"ok"}\n`);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal((await ctl(dir, ['daemon', 'config', 'show'])).stdout, '{"version":1}\n');

  writeFileSync(join(dir, 'c.yaml'), 'logging: {max_files: 3}\nrestart_policy: {max_restarts: 1}\n');
  assert.equal((await ctl(dir, ['daemon', 'config', 'set', '@c.yaml'])).code, 0);
  const shown = '{"logging":{"max_files":3},"restart_policy":{"max_restarts":1},"version":1}\n';
  assert.equal((await ctl(dir, ['daemon', 'config', 'show'])).stdout, shown);

  const unknown = await setFromStdin('bogus: 1\n');
  assert.equal(unknown.code, 1);
  assert.match(JSON.parse(unknown.stdout).message, /^Unknown key\(s\): bogus\. Known keys are: /);
  const bad = await ctl(dir, ['--human', 'daemon', 'config', 'set', '@bad.yaml']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^Error: Could not read .*bad\.yaml/);
  writeFileSync(join(dir, 'bad.yaml'), 'restart_policy: {max_restarts: -1}\n');
  const invalid = await ctl(dir, ['daemon', 'config', 'set', 'bad.yaml']);
  assert.equal(JSON.parse(invalid.stdout).code, 'INVALID_CONFIG');
  assert.equal((await ctl(dir, ['daemon', 'config', 'show'])).stdout, shown, 'the previous file is kept');
  assert.match(readFileSync(join(dir, 'daemon', 'config.yaml'), 'utf8'), /max_files: 3/);
});
