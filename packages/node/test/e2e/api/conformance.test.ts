/**
 * End to end: a devnet node started through the CLI as a child process (a fast test deployment, the
 * insecure test proofs, its API on an ephemeral port of 127.0.0.1, its state in a temporary
 * directory) is checked by the black-box conformance checker of the shared API spec,
 * `../shared/conformance/check.mjs` (beside the repository's root; the test is skipped without it).
 *
 * Every check of an endpoint the node serves must pass. The checks of endpoints of services not built
 * yet are expected to fail: they are listed below by name, and any of them that passes is reported so
 * that the list can be shrunk.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fastDeploymentYaml } from '../../mocks/fast-deployment.ts';
import { waitUntil } from '../../utils/api-node.ts';
import { devnetConfigYaml, spawnCli } from '../../utils/cli-process.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CHECKER = resolve(ROOT, '../../../shared/conformance/check.mjs');

/** Checks of endpoints of services not built yet (Blend), the OpenAPI check, which lists
 * those endpoints too, and one deliberate difference. The checker runs with `--writes`: transactions
 * through the wallet, funding, leader claims. */
const EXPECTED_TO_FAIL: ReadonlySet<string> = new Set([
  // deliberate difference (README, browser protection): a foreign origin's preflight of a state-changing
  // route is refused; the checker preflights /wallet/transactions/transfer-funds
  'CORS preflight allows any origin',
  // the checker takes a 200 of GET /cryptarchia/transaction/{id} for inclusion and reads the balance at
  // once; the reference serves pending transactions there too (its handler reads the store the mempool
  // writes bodies to), as this node does, so the balance has not moved yet. The transfer, its inclusion
  // and both balances are checked in test/e2e/scenarios/transactions.test.ts.
  'POST /wallet/transactions/transfer-funds is included',
]);

/** The devnet configuration (its public test keys), the API on an ephemeral port, state beside it. */
function configYaml(): string {
  // Endpoints that wait (e.g. for Online) answer 408 soon rather than holding the checker 30 s.
  return devnetConfigYaml({ baseFolder: './state', apiTimeout: 5, prolongedBootstrapPeriod: 1 });
}

interface CheckResult {
  readonly name: string;
  readonly ok: boolean;
  readonly details: string[];
}

/** Parses the checker's output: `PASS <name>` / `FAIL <name>` lines, details indented below a FAIL. */
function parseChecks(out: string): { results: CheckResult[]; summary?: { passed: number; failed: number } } {
  const results: { name: string; ok: boolean; details: string[] }[] = [];
  let summary: { passed: number; failed: number } | undefined;
  for (const line of out.split('\n')) {
    const m = /^(PASS|FAIL) (.+)$/.exec(line);
    const s = /^(\d+) passed, (\d+) failed$/.exec(line);
    if (m) results.push({ name: m[2]!, ok: m[1] === 'PASS', details: [] });
    else if (s) summary = { passed: Number(s[1]), failed: Number(s[2]) };
    else if (/^\s+\S/.test(line) && results.length > 0)
      results[results.length - 1]!.details.push(line.trim());
  }
  return summary ? { results, summary } : { results };
}

/** Runs a command to its end (killed after `ms`), collecting its output. */
function run(cmd: string, args: string[], ms: number): Promise<{ code: number | null; out: string }> {
  return new Promise((resolveRun, reject) => {
    const p = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    p.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const timer = setTimeout(() => p.kill('SIGKILL'), ms);
    p.on('error', reject);
    p.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, out });
    });
  });
}

let child: ChildProcess | undefined;
let dir: string | undefined;

/** Stops the node (SIGTERM, SIGKILL after 10 s); its exit code, or the signal that ended it. */
async function stopChild(): Promise<number | string | undefined> {
  const p = child;
  child = undefined;
  if (!p) return undefined;
  if (p.exitCode === null && p.signalCode === null) {
    const exited = new Promise<void>((r) => p.once('exit', () => r()));
    p.kill('SIGTERM');
    const timer = setTimeout(() => p.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  return p.exitCode ?? p.signalCode ?? undefined;
}

after(async () => {
  await stopChild();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the conformance checker passes against a CLI-started devnet node, but for services not built yet', {
  skip: existsSync(CHECKER) ? false : `no conformance checker at ${CHECKER}`,
}, async (t) => {
  dir = mkdtempSync(join(tmpdir(), 'logos-conformance-'));
  const config = join(dir, 'user_config.yaml');
  writeFileSync(config, configYaml(), { mode: 0o600 });
  // 250 ms slots, f = 1/2: a block about every half second; k = 2.
  writeFileSync(join(dir, 'fast.yaml'), fastDeploymentYaml(250, 2));

  const p = spawnCli(
    ['start', '--config', config, '--deployment', join(dir, 'fast.yaml'), '--insecure-test-proofs'],
    dir,
  );

  child = p;
  // The node logs JSON lines; keep the tail for failure messages and find the API's address.
  let log = '';
  let address: string | undefined;
  // Error-level lines (pino's level 50), kept whole: a healthy node answering the checker logs none.
  let partial = '';
  const errorLines: string[] = [];
  const onLog = (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop() ?? '';
    errorLines.push(...lines.filter((l) => l.startsWith('{"level":50')));
    log = (log + d.toString()).slice(-20_000);
    address ??= /"address":"([^"]+)","msg":"HTTP API listening"/.exec(log)?.[1];
  };
  p.stdout!.on('data', onLog);
  p.stderr!.on('data', onLog);
  const exited = () => p.exitCode !== null || p.signalCode !== null;

  try {
    await waitUntil(() => address !== undefined || exited(), 60_000, 'the node to listen', 50);
    assert.ok(address, `the node did not start:\n${log}`);
    const base = `http://${address}`;
    // Online, with an LIB above genesis: the checks of immutable blocks and the LIB stream bite.
    await waitUntil(
      async () => {
        if (exited()) return true;
        const r = await fetch(`${base}/cryptarchia/info`, { signal: AbortSignal.timeout(5_000) }).catch(
          () => undefined,
        );
        const i = r?.ok
          ? ((await r.json()) as { cryptarchia_info: { state: string; lib_slot: number; height: number } })
              .cryptarchia_info
          : undefined;
        return i !== undefined && i.state === 'Online' && i.lib_slot > 0 && i.height >= 5;
      },
      60_000,
      'the node to be Online with an LIB above genesis',
      200,
    );
    assert.ok(!exited(), `the node stopped:\n${log}`);

    const { code, out } = await run(
      process.execPath,
      [CHECKER, '--base', base, '--writes', '--stream-timeout', '20'],
      120_000,
    );
    const { results, summary } = parseChecks(out);
    assert.ok(summary, `the checker did not finish (exit ${code}):\n${out}`);
    assert.ok(code === 0 || code === 1, `the checker crashed (exit ${code}):\n${out}`);
    assert.equal(results.length, summary.passed + summary.failed, 'every check parsed');
    assert.ok(results.length >= 40, `only ${results.length} checks ran`);

    const unexpected = results.filter((r) => !r.ok && !EXPECTED_TO_FAIL.has(r.name));
    const nowPassing = results.filter((r) => r.ok && EXPECTED_TO_FAIL.has(r.name));
    const names = new Set(results.map((r) => r.name));
    const unknown = [...EXPECTED_TO_FAIL].filter((n) => !names.has(n));
    for (const r of nowPassing) {
      const msg = `expected to fail but passes now (remove it from EXPECTED_TO_FAIL): ${r.name}`;
      console.log(msg);
      t.diagnostic(msg);
    }
    for (const n of unknown) {
      const msg = `EXPECTED_TO_FAIL names a check the checker no longer runs: ${n}`;
      console.log(msg);
      t.diagnostic(msg);
    }
    t.diagnostic(
      `${summary.passed} passed, ${summary.failed} failed (${summary.failed - unexpected.length} of them expected)`,
    );
    assert.deepEqual(
      unexpected.map((r) => `${r.name}: ${r.details.join(' | ')}`),
      [],
      'checks of endpoints the node serves must pass',
    );

    // The node went through the whole check and is still serving.
    assert.ok(!exited(), `the node stopped during the checks:\n${log}`);
    const alive = await fetch(`${base}/cryptarchia/info`, { signal: AbortSignal.timeout(10_000) });
    assert.equal(alive.status, 200);
    await alive.text();
    assert.deepEqual(errorLines, [], "the checker's requests log no error-level line");
    assert.equal(await stopChild(), 0, `the node stops cleanly on SIGTERM:\n${log.slice(-2000)}`);
  } finally {
    await stopChild();
    rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  }
});
