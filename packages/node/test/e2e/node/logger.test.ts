/**
 * The node's logs: readable lines on a terminal (time, level, module, message, fields), JSON lines
 * otherwise or when asked; per-module levels from a closed set of modules; the start-up banner with
 * the API address, the chain and the funded devnet keys.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, describe, test } from 'node:test';
import { pino } from 'pino';
import { banner } from '../../../src/cli/index.ts';
import { devnetConfig, fundedDevnetKeys } from '../../../src/node/devnet.ts';
import {
  createRootLogger,
  defaultLogFormat,
  isLogModule,
  LOG_MODULES,
  ModuleLoggers,
  prettyLine,
} from '../../../src/node/logger.ts';
import { LogosNode } from '../../../src/node/node.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';
import { FAST, fastDeploymentYaml } from '../../mocks/fast-deployment.ts';
import { spawnCli } from '../../utils/cli-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'logos-logs-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function capture(isTTY: boolean): { out: PassThrough & { isTTY?: boolean }; text: () => string } {
  const out = new PassThrough() as PassThrough & { isTTY?: boolean };
  out.isTTY = isTTY;
  let buf = '';
  out.on('data', (d: Buffer) => {
    buf += d.toString();
  });
  return { out, text: () => buf };
}

describe('log lines', () => {
  test('a pretty line: time, level, module, message, then the fields', () => {
    const line = prettyLine(
      JSON.stringify({
        level: 40,
        time: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
        svc: 'logos-node',
        module: 'chain',
        msg: 'block rejected',
        slot: 12,
        err: 'parent missing',
        id: 'ab',
      }),
    );
    assert.equal(line, '03:04:05.678 WARN  chain   block rejected  slot=12 err="parent missing" id=ab\n');
  });

  test('pretty on a terminal, JSON on a pipe; either when asked', async () => {
    assert.equal(defaultLogFormat({ isTTY: true }), 'pretty');
    assert.equal(defaultLogFormat({}), 'json');
    const tty = capture(true);
    const prettyLogger = createRootLogger({ level: 'info', format: 'pretty', out: tty.out });
    prettyLogger.child({ module: 'api' }).info({ address: '127.0.0.1:1' }, 'HTTP API listening');
    const json = capture(false);
    createRootLogger({ level: 'info', format: 'json', out: json.out }).info({ a: 1 }, 'hello');
    await new Promise((r) => setImmediate(r));
    const ESC = String.fromCharCode(27);
    if (process.env.NO_COLOR === undefined)
      assert.ok(tty.text().includes(`${ESC}[`), 'coloured on a terminal');
    const plain = tty.text().replace(new RegExp(`${ESC}\\[\\d+m`, 'g'), '');
    assert.match(plain, /^\d\d:\d\d:\d\d\.\d{3} INFO +api +HTTP API listening +address=127\.0\.0\.1:1\n$/);
    assert.doesNotMatch(tty.text(), /^\{/);
    const o = JSON.parse(json.text()) as Record<string, unknown>;
    assert.equal(o.msg, 'hello');
    assert.equal(o.svc, 'logos-node');
  });

  test('module levels: a closed set of modules, `*` for all', () => {
    assert.ok(isLogModule('chain') && isLogModule('api') && !isLogModule('libp2p'));
    assert.ok(LOG_MODULES.includes('leader'));
    const loggers = new ModuleLoggers(pino({ level: 'info' }));
    const chain = loggers.get('chain');
    const api = loggers.get('api');
    assert.deepEqual(loggers.setFilter({ '*': 'warn', chain: 'debug' }), []);
    assert.equal(loggers.root.level, 'warn');
    assert.equal(chain.level, 'debug');
    assert.equal(api.level, 'warn');
    assert.equal(loggers.get('chain'), chain, 'one logger per module');
    // A filter replaces the one before: modules it does not name go back to the starting level, and
    // targets that name no module are reported.
    assert.deepEqual(loggers.setFilter({ api: 'error', libp2p: 'debug' }), ['libp2p']);
    assert.equal(loggers.root.level, 'info');
    assert.equal(chain.level, 'info');
    assert.equal(api.level, 'error');
  });
});

describe('start-up', () => {
  test('the banner names the API address, the chain and the funded devnet keys', async () => {
    const node = await LogosNode.start({
      deployment: FAST,
      config: {
        ...devnetConfig(),
        api: { backend: { ...devnetConfig().api.backend, listen_address: '127.0.0.1:0' } },
        state: { base_folder: join(dir, 'banner') },
      },
      baseDir: dir,
      logger: pino({ level: 'silent' }),
      proofs: INSECURE_TEST_PROOFS,
    });
    try {
      const text = banner(node, FAST, true);
      assert.match(text, new RegExp(`API +http://${node.api.listening}`));
      assert.match(text, /chain +fast-test, chain id logos-devnet/);
      for (const k of fundedDevnetKeys())
        assert.match(text, new RegExp(`${k.index} +${k.publicKey} +${k.secretKey}`));
      assert.doesNotMatch(banner(node, FAST, false), /devnet keys/);
    } finally {
      await node.stop();
    }
  });

  test('`start --log-format pretty` prints readable lines and the banner; json prints JSON lines', async () => {
    const cwd = mkdtempSync(join(dir, 'cli-'));
    writeFileSync(join(cwd, 'fast.yaml'), fastDeploymentYaml(100, 2));
    writeFileSync(join(cwd, 'node.yaml'), 'api: { backend: { listen_address: 127.0.0.1:0 } }\n');
    for (const format of ['pretty', 'json']) {
      const p = spawnCli(
        ['start', '-c', 'node.yaml', '-d', 'fast.yaml', '--insecure-test-proofs', '--log-format', format],
        cwd,
      );
      let out = '';
      p.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
      });
      const exited = new Promise<number | null>((r) => p.once('exit', (c) => r(c)));
      const deadline = Date.now() + 30_000;
      while (!/HTTP API listening/.test(out) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 300));
      p.kill('SIGTERM');
      assert.equal(await exited, 0);
      const lines = out.split('\n').filter((l) => l.trim() !== '');
      if (format === 'pretty') {
        assert.ok(
          lines.some((l) => /^\d\d:\d\d:\d\d\.\d{3} INFO +api +HTTP API listening +address=/.test(l)),
          out,
        );
        assert.ok(
          lines.some((l) => /^ +API +http:\/\/127\.0\.0\.1:\d+/.test(l)),
          out,
        );
        assert.ok(
          lines.every((l) => !l.startsWith('{')),
          out,
        );
      } else {
        for (const l of lines) JSON.parse(l);
        assert.ok(
          lines.some((l) => /"msg":"stopped"/.test(l)),
          out,
        );
      }
      assert.doesNotMatch(out, /block production failed/);
    }
  });
});
