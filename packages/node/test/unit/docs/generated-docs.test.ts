/**
 * The generated documentation pages (docs/api/endpoints.md from the route table, docs/running/cli.md
 * from the node's CLI) are rendered again in memory by scripts/gen-docs.ts and must equal the committed
 * files: a route or a command changed without refreshing the pages fails here, naming the command that
 * refreshes them. The hand-written logging page is checked against the node's list of log modules.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { API } from '../../../src/api/definitions.ts';
import { buildCli } from '../../../src/cli/index.ts';
import { LOG_MODULES } from '../../../src/node/logger.ts';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../..');

interface GenDocs {
  readonly REFRESH_COMMAND: string;
  generatedPages(): Promise<{ path: string; content: string }[]>;
}

/** The generator lives outside this package (the repository's scripts/), so it is imported by URL. */
async function loadGenerator(): Promise<GenDocs> {
  return (await import(pathToFileURL(join(REPO_ROOT, 'scripts/gen-docs.ts')).href)) as GenDocs;
}

test('the committed generated pages equal what the code generates now', async () => {
  const gen = await loadGenerator();
  const pages = await gen.generatedPages();
  assert.deepEqual(
    pages.map((p) => p.path),
    ['docs/api/endpoints.md', 'docs/running/cli.md'],
  );
  for (const page of pages) {
    const file = join(REPO_ROOT, page.path);
    assert.ok(
      existsSync(file),
      `${page.path} is missing: run \`${gen.REFRESH_COMMAND}\` from the repository root`,
    );
    const committed = readFileSync(file, 'utf8');
    assert.ok(
      committed === page.content,
      `${page.path} is stale (the code changed since it was generated): run \`${gen.REFRESH_COMMAND}\` from the repository root and commit the result`,
    );
  }
});

test('the endpoints page has one row per operation of the route table, with its method and path', async () => {
  const page = (await (await loadGenerator()).generatedPages()).find(
    (p) => p.path === 'docs/api/endpoints.md',
  )!;
  const rows = page.content.split('\n').filter((l) => /^\| (GET|POST|PUT) \|/.test(l));
  assert.equal(rows.length, Object.keys(API).length);
  for (const [operationId, def] of Object.entries(API)) {
    const row = rows.find((r) => r.includes(`| \`${operationId}\` |`));
    assert.ok(row, `no row for ${operationId}`);
    assert.ok(row.startsWith(`| ${def.method} | \`${def.path}\` |`), `${operationId}: ${row}`);
  }
});

test('the CLI page has a section for every command and every option of the CLI', async () => {
  const page = (await (await loadGenerator()).generatedPages()).find(
    (p) => p.path === 'docs/running/cli.md',
  )!;
  const walk = (cmd: ReturnType<typeof buildCli>, prefix: string): void => {
    for (const c of cmd.commands) {
      const name = `${prefix} ${c.name()}`;
      assert.ok(page.content.includes(`\n## ${name}\n`), `no section for ${name}`);
      for (const o of c.options) {
        const flags = o.flags.replace(/\|/g, '\\|');
        assert.ok(page.content.includes(`| \`${flags}\` |`), `${name}: no ${o.flags}`);
      }
      walk(c, name);
    }
  };
  const program = buildCli();
  walk(program, program.name());
  assert.match(page.content, /## logos-node start\n\n[^\n]+\n\nThe default command/);
});

test('the logging page lists every log module of the node, and no other', () => {
  const page = readFileSync(join(REPO_ROOT, 'docs/running/logging.md'), 'utf8');
  const listed = [...page.matchAll(/^\| `([a-z0-9]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual(
    listed,
    [...LOG_MODULES],
    'docs/running/logging.md: the table of log modules differs from LOG_MODULES',
  );
});
