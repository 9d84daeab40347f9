/**
 * `daemon/config.yaml` (operator.md §1.2, §1.3): the `restart_policy:` bounds that keep the restart
 * timer meaningful, and the refusals of `daemon config set` with their messages.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '@logos-ts/shared/config-fields';
import {
  ConfigDocumentUnreadable,
  checkDaemonConfig,
  configuredModulesDirs,
  DAEMON_CONFIG_VERSION,
  InvalidConfig,
  MAX_TIMER_MS,
  readDocument,
  restartPolicy,
} from '../../src/daemon-config.ts';

test('restart_policy: defaults, and a backoff_ms past the longest timer is refused', () => {
  assert.deepEqual(restartPolicy({}), { maxRestarts: 3, backoffMs: 1000 });
  assert.equal(restartPolicy({ restart_policy: { backoff_ms: MAX_TIMER_MS } }).backoffMs, MAX_TIMER_MS);
  assert.throws(
    () => restartPolicy({ restart_policy: { backoff_ms: 2 ** 31 } }),
    /restart_policy\.backoff_ms/,
  );
  assert.throws(() => restartPolicy({ restart_policy: { backoff_ms: 1e300 } }), /restart_policy\.backoff_ms/);
  assert.throws(
    () => restartPolicy({ restart_policy: { max_restarts: -1 } }),
    /restart_policy\.max_restarts/,
  );
});

test('checkDaemonConfig: refusals are InvalidConfig (a ConfigError) with the pinned messages', () => {
  const refused = (text: string, message: string | RegExp) =>
    assert.throws(
      () => checkDaemonConfig(text),
      (e: unknown) =>
        e instanceof InvalidConfig &&
        e instanceof ConfigError &&
        (typeof message === 'string' ? e.message === message : message.test(e.message)),
      text,
    );
  refused('- a\n- b\n', 'The config document must be a mapping at the top level.');
  refused('', 'The config document must be a mapping at the top level.');
  refused('zz: 1\nlogging: {}\nyy: 2\n', /^Unknown key\(s\): zz, yy\. Known keys are: access_group, /);
  refused('signature_policy: maybe\n', 'signature_policy: expected none, warn or require');
  refused('signature_policy: null\n', 'signature_policy: expected none, warn or require');
  refused('restart_policy: [1]\n', 'restart_policy: not a mapping');
  refused(
    'restart_policy: {max_restarts: "3"}\n',
    /^restart_policy\.max_restarts: expected a whole number from 0 to /,
  );
  refused('modules_dirs: [a, ""]\n', 'modules_dirs: expected a list of folders');
  refused('modules_dirs: a\n', 'modules_dirs: expected a list of folders');
  refused('a: [', /^Not valid YAML: /);
  const ok = checkDaemonConfig(
    'signature_policy: require\nrestart_policy: {max_restarts: null}\nmodules_dirs: [m]\n',
  );
  assert.equal(ok.version, DAEMON_CONFIG_VERSION);
  assert.equal(ok.signature_policy, 'require');
  assert.deepEqual(restartPolicy(ok), { maxRestarts: 3, backoffMs: 1000 });
  assert.deepEqual(configuredModulesDirs({ modules_dirs: ['m'] }, '/srv'), ['/srv/m']);
  assert.deepEqual(configuredModulesDirs({ modules_dirs: null }, '/srv'), []);
});

test('readDocument: an unreadable file is ConfigDocumentUnreadable (not InvalidConfig), naming the path', () => {
  assert.throws(
    () => readDocument('@missing.yaml', '/nonexistent-folder'),
    (e: unknown) =>
      e instanceof ConfigDocumentUnreadable &&
      !(e instanceof InvalidConfig) &&
      e.code === 'DAEMON_CONFIG_UNREADABLE' &&
      e.message === 'Could not read /nonexistent-folder/missing.yaml: ENOENT',
  );
});
