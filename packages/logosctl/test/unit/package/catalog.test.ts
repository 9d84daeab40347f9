/**
 * Catalogs (operator.md §1.7; logos-package-downloader `docs/spec.md`, `tests/test_downloader.cpp`): the
 * `logos-repo.json` and `index.json` documents, relative URLs, version ranges and ordering (the reference's
 * own cases), URL schemes, and dependency resolution over a `file:` catalog (dependencies first, a
 * top-level pin winning, installed transitive dependencies left out, unsatisfiable ones reported).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { parseIndex, parseRepoDescriptor } from '../../../src/package/catalog.ts';
import { checkUrl, fetchBytes } from '../../../src/package/fetch.ts';
import { Repositories } from '../../../src/package/repositories.ts';
import { compareVersions, satisfies } from '../../../src/package/semver.ts';

const H = (c: string): string => c.repeat(64);

describe('catalog documents', () => {
  test('logos-repo.json: fields, relative indexUrl, signers; missing name or indexUrl refused', () => {
    const r = parseRepoDescriptor(
      JSON.stringify({
        schemaVersion: 1,
        name: 'test',
        displayName: 'Test',
        indexUrl: 'sub/index.json',
        trustedSigners: [{ did: 'did:jwk:abc' }],
      }),
      'https://example.org/repo/logos-repo.json',
    );
    assert.equal(r.indexUrl, 'https://example.org/repo/sub/index.json');
    assert.deepEqual(r.trustedSigners, ['did:jwk:abc']);
    assert.throws(() => parseRepoDescriptor('{"indexUrl":"i.json"}', 'file:///r.json'), /'name' is required/);
    assert.throws(() => parseRepoDescriptor('{"name":"x"}', 'file:///r.json'), /'indexUrl' is required/);
    assert.throws(() => parseRepoDescriptor('[1]', 'file:///r.json'), /not a JSON object/);
  });

  test('index.json: versions newest first, version from the manifest, relative URLs, bad hashes refused', () => {
    const pkgs = parseIndex(
      JSON.stringify({
        schemaVersion: 2,
        packages: [
          {
            name: 'blockchain_module',
            versions: [
              {
                releasedAt: '2026-03-01T00:00:00Z',
                url: 'a-1.2.1.lgx',
                rootHash: H('1'),
                manifest: { version: '1.2.1', type: 'core' },
              },
              {
                releasedAt: '2026-01-01T00:00:00Z',
                url: 'https://cdn/a-2.0.0.lgx',
                rootHash: H('2'),
                manifest: { version: '2.0.0' },
              },
              { releasedAt: '2026-02-01T00:00:00Z', url: 'a-rc.lgx', version: '2.0.0-rc.1', rootHash: '' },
            ],
          },
        ],
      }),
      'https://example.org/repo/index.json',
    );
    assert.deepEqual(
      pkgs[0]!.versions.map((v) => [v.version, v.url]),
      [
        ['2.0.0', 'https://cdn/a-2.0.0.lgx'],
        ['2.0.0-rc.1', 'https://example.org/repo/a-rc.lgx'],
        ['1.2.1', 'https://example.org/repo/a-1.2.1.lgx'],
      ],
    );
    const bad = (v: object): string => JSON.stringify({ packages: [{ name: 'x', versions: [v] }] });
    assert.throws(
      () => parseIndex(bad({ url: 'x.lgx', version: '1', rootHash: 'zz' }), 'file:///i.json'),
      /rootHash/,
    );
    assert.throws(() => parseIndex(bad({ url: 'x.lgx' }), 'file:///i.json'), /no version/);
    assert.throws(() => parseIndex(bad({ version: '1' }), 'file:///i.json'), /'url' is required/);
    assert.throws(() => parseIndex('{"packages":{}}', 'file:///i.json'), /'packages' must be an array/);
  });

  test('index.json: a version or name that would leave the downloads folder is refused', () => {
    const bad = (v: object): string => JSON.stringify({ packages: [{ name: 'x', versions: [v] }] });
    for (const version of [
      '1/../../../../../../tmp/owned',
      '..',
      '1..2',
      '1\\..\\x',
      '/1',
      ''.padEnd(65, '1'),
    ])
      assert.throws(
        () => parseIndex(bad({ url: 'x.lgx', version }), 'file:///i.json'),
        /invalid version|no version/,
        version,
      );
    assert.throws(
      () => parseIndex(bad({ url: 'x.lgx', manifest: { version: '1/../../owned' } }), 'file:///i.json'),
      /invalid version/,
    );
    assert.throws(
      () => parseIndex(JSON.stringify({ packages: [{ name: '../x', versions: [] }] }), 'file:///i.json'),
      /invalid 'name'/,
    );
  });

  test('version ranges and order (the reference downloader cases)', () => {
    const yes: [string, string][] = [
      ['1.2.3', '1.2.3'],
      ['>=1.0.0', '9.0.0'],
      ['<2.0.0', '1.99.0'],
      ['^1.2.3', '1.9.9'],
      ['^0.2.3', '0.2.9'],
      ['~1.2.3', '1.2.9'],
      ['*', '9.9.9'],
      ['1.x', '1.5.0'],
      ['>=1.0 <2.0', '1.5.0'],
      ['1.x || 2.x', '2.3.4'],
      ['^1.0.0-rc.1', '1.0.0-rc.2'],
      ['^1.0.0-rc.1', '1.0.0'],
    ];
    const no: [string, string][] = [
      ['1.2.3', '1.2.4'],
      ['>=2.0.0', '1.99.0'],
      ['^1.2.3', '2.0.0'],
      ['^0.2.3', '0.3.0'],
      ['~1.2.3', '1.3.0'],
      ['1.x', '2.0.0'],
      ['>=1.0 <2.0', '2.0.1'],
      ['1.x || 2.x', '3.0.0'],
      ['^1.0.0', '2.0.0-alpha'],
      ['^1.0.0', '1.5.0-beta.1'],
      ['>=1.0.0', '1.0.0-rc.1'],
      ['*', '1.0.0-alpha'],
    ];
    for (const [range, v] of yes) assert.ok(satisfies(v, range), `${v} satisfies ${range}`);
    for (const [range, v] of no) assert.ok(!satisfies(v, range), `${v} does not satisfy ${range}`);
    assert.ok(compareVersions('1.0.0-rc.11', '1.0.0-rc.2') > 0);
    assert.ok(compareVersions('1.0.0-rc.1', '1.0.0') < 0);
    assert.ok(compareVersions('2.0.0', '1.2.1') > 0);
  });

  test('URLs: file, http and https read; logos: and others refused with a reason; sizes capped', async () => {
    assert.throws(() => checkUrl('logos:testnet:zDvZ'), /logos: URLs are served over Logos Storage/);
    assert.throws(() => checkUrl('ftp://x/y'), /unsupported URL scheme ftp:/);
    assert.throws(() => checkUrl('not a url'), /Not a URL/);
    assert.equal(checkUrl('http://127.0.0.1/x').protocol, 'http:');
    const d = mkdtempSync(join(tmpdir(), 'fetch-'));
    try {
      writeFileSync(join(d, 'f'), 'x'.repeat(100));
      assert.equal((await fetchBytes(pathToFileURL(join(d, 'f')).href, 100)).length, 100);
      await assert.rejects(fetchBytes(pathToFileURL(join(d, 'f')).href, 99), /over the limit of 99/);
      await assert.rejects(fetchBytes(pathToFileURL(join(d, 'missing')).href, 99), /ENOENT/);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('resolution over a file: catalog', () => {
  const session = mkdtempSync(join(tmpdir(), 'repos-'));
  after(() => rmSync(session, { recursive: true, force: true }));
  const cat = join(session, 'cat');
  mkdirSync(cat);
  const version = (name: string, v: string, hash: string, deps: unknown[] = []): object => ({
    url: `${name}-${v}.lgx`,
    rootHash: H(hash),
    manifest: { name, version: v, dependencies: deps },
  });
  writeFileSync(join(cat, 'logos-repo.json'), JSON.stringify({ name: 'unit', indexUrl: 'index.json' }));
  writeFileSync(
    join(cat, 'index.json'),
    JSON.stringify({
      packages: [
        { name: 'ui_app', versions: [version('ui_app', '0.1.0', 'a', [{ name: 'core_lib', version: '*' }])] },
        {
          name: 'core_lib',
          versions: [version('core_lib', '0.2.0', 'c'), version('core_lib', '0.1.0', 'b', ['base'])],
        },
        { name: 'base', versions: [version('base', '1.0.0', 'd')] },
      ],
    }),
  );
  const url = pathToFileURL(join(cat, 'logos-repo.json')).href;

  test('dependencies first; a top-level pin wins; installed ones left out; unsatisfiable reported', async () => {
    const repos = new Repositories(session);
    await repos.add(url);
    repos.setEnabled(repos.defaultUrl, false);
    const names = (rows: { name: string; version?: string; topLevel?: boolean }[]): string[] =>
      rows.map((r) => `${r.name}@${r.version}${r.topLevel ? '!' : ''}`);
    assert.deepEqual(names((await repos.resolve([{ name: 'ui_app' }], [])) as never), [
      'core_lib@0.2.0',
      'ui_app@0.1.0!',
    ]);
    assert.deepEqual(
      names((await repos.resolve([{ name: 'ui_app' }, { name: 'core_lib', version: '0.1.0' }], [])) as never),
      ['base@1.0.0', 'core_lib@0.1.0!', 'ui_app@0.1.0!'],
    );
    assert.deepEqual(
      names((await repos.resolve([{ name: 'ui_app' }], [{ name: 'core_lib', version: '0.1.0' }])) as never),
      ['ui_app@0.1.0!'],
    );
    assert.deepEqual(await repos.resolve([{ name: 'core_lib', rootHash: H('f') }], []), [
      {
        name: 'core_lib',
        error: `No release of 'core_lib' has root hash ${H('f')} (available: 0.2.0 ${H('c')}, 0.1.0 ${H('b')})`,
      },
    ]);
    const missing = await repos.resolve([{ name: 'nothing' }], []);
    assert.match((missing[0] as { error: string }).error, /No package named 'nothing'/);
    await assert.rejects(repos.add(url), /already registered/);
    await assert.rejects(repos.add(pathToFileURL(join(session, 'none.json')).href), /Cannot add/);
  });
});
