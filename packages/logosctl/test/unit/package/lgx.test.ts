/**
 * `.lgx` packages (operator.md §1.7; logos-package `docs/spec.md`, `src/crypto/signing.cpp`): the root hash
 * is the reference's Merkle tree (recomputed here from its written rule), packing is deterministic, a
 * tampered byte or a path leaving the package is refused, and an install replaces a previous one
 * atomically and leaves nothing behind when it fails.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Header } from 'tar';
import { installPackage } from '../../../src/package/install.ts';
import { type LgxFile, merkleHashes, packLgx, readLgx } from '../../../src/package/lgx.ts';
import { MANIFEST_VERSION, type Manifest, parseManifest } from '../../../src/package/manifest.ts';

const sha = (b: string | Uint8Array): string => createHash('sha256').update(b).digest('hex');

const manifest = (over: Partial<Manifest> = {}): Manifest => ({
  manifestVersion: MANIFEST_VERSION,
  name: 'demo_module',
  version: '1.0.0',
  description: 'demo',
  author: 'tests',
  type: 'core',
  category: 'test',
  icon: '',
  dependencies: [],
  main: { node: 'module.mjs' },
  hashes: {},
  ...over,
});

const file = (path: string, text: string): LgxFile => ({ path, data: Buffer.from(text) });

/** A raw tar.gz of `entries` (path, type, content), for archives the packer would not write. */
function rawLgx(
  entries: { path: string; type?: 'File' | 'Directory' | 'SymbolicLink'; text?: string; linkpath?: string }[],
): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const data = Buffer.from(e.text ?? '');
    const type = e.type ?? 'File';
    const h = new Header({
      path: e.path,
      mode: 0o644,
      size: type === 'File' ? data.length : 0,
      mtime: new Date(0),
      type,
      ...(e.linkpath ? { linkpath: e.linkpath } : {}),
    });
    const block = Buffer.alloc(512);
    h.encode(block, 0);
    blocks.push(block);
    if (type === 'File') blocks.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

describe('lgx', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lgx-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('the root hash is the reference Merkle tree: leaves per folder, variants as a parent, root over the top folders', () => {
    const files = [
      file('variants/node/module.mjs', 'export default 1;\n'),
      file('variants/node/lib/a.js', 'a'),
      file('variants/linux-amd64/libx.so', 'ELF'),
      file('docs/README.md', '# demo'),
    ];
    const leaf = (list: [string, string][]): string =>
      sha(
        list
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([p, t]) => `${p}\0${sha(t)}\n`)
          .join(''),
      );
    const node = leaf([
      ['module.mjs', 'export default 1;\n'],
      ['lib/a.js', 'a'],
    ]);
    const linux = leaf([['libx.so', 'ELF']]);
    const variants = sha(`linux-amd64\0${linux}\nnode\0${node}\n`);
    const docs = leaf([['README.md', '# demo']]);
    const root = sha(`docs\0${docs}\nvariants\0${variants}\n`);
    assert.deepEqual(merkleHashes(files), {
      docs,
      'variants/node': node,
      'variants/linux-amd64': linux,
      variants,
      root,
    });
  });

  test('pack is deterministic and reads back verified; the manifest carries the hashes', async () => {
    const files = [file('variants/node/module.mjs', 'export default 1;\n'), file('licenses/MIT', 'mit')];
    const a = packLgx(manifest(), files);
    const b = packLgx(manifest(), [...files].reverse());
    assert.deepEqual(a.bytes, b.bytes, 'same files, same bytes');
    assert.equal(a.bytes[9], 0xff, 'gzip OS byte unknown');
    const pkg = await readLgx(a.bytes);
    assert.equal(pkg.rootHash, a.manifest.hashes.root);
    assert.equal(pkg.manifest.name, 'demo_module');
    assert.deepEqual(
      pkg.files.map((f) => f.path),
      ['licenses/MIT', 'variants/node/module.mjs'],
    );
    const other = packLgx(manifest(), [file('variants/node/module.mjs', 'export default 2;\n')]);
    assert.notEqual(other.manifest.hashes.root, a.manifest.hashes.root, 'other content, other root');
  });

  test('a tampered byte is refused: content against the manifest hash, and a damaged gzip stream', async () => {
    const { bytes } = packLgx(manifest(), [file('variants/node/module.mjs', 'export default 1;\n')]);
    const tar = gunzipSync(bytes);
    const at = tar.indexOf('export default 1');
    tar[at + 15] = '2'.charCodeAt(0);
    await assert.rejects(readLgx(gzipSync(tar)), /Content hash mismatch/);
    const damaged = Buffer.from(bytes);
    damaged[Math.floor(damaged.length / 2)]! ^= 0xff;
    await assert.rejects(readLgx(damaged), /gzip|tar|hash|Missing/i);
    await assert.rejects(readLgx(Buffer.from('not a package')), /Not a gzip archive/);
  });

  test('paths leaving the package, links, other root entries and a missing variant are refused', async () => {
    const m = JSON.stringify({ ...manifest(), hashes: {} });
    const cases: [Parameters<typeof rawLgx>[0], RegExp][] = [
      [
        [
          { path: 'manifest.json', text: m },
          { path: 'variants/node/../../evil', text: 'x' },
        ],
        /'\.\.' segment/,
      ],
      [
        [
          { path: 'manifest.json', text: m },
          { path: '/etc/evil', text: 'x' },
        ],
        /absolute path|Forbidden root entry/,
      ],
      [
        [
          { path: 'manifest.json', text: m },
          { path: 'variants/node/module.mjs', type: 'SymbolicLink', linkpath: '/etc/passwd' },
        ],
        /Forbidden entry type SymbolicLink/,
      ],
      [
        [
          { path: 'manifest.json', text: m },
          { path: 'bin/tool', text: 'x' },
          { path: 'variants/node/module.mjs', text: 'x' },
        ],
        /Forbidden root entry: bin/,
      ],
      [
        [
          { path: 'manifest.json', text: m },
          { path: 'variants/other/x.so', text: 'x' },
        ],
        /has no corresponding variant|has no main entry/,
      ],
      [[{ path: 'variants/node/module.mjs', text: 'x' }], /Missing manifest\.json/],
    ];
    for (const [entries, re] of cases)
      await assert.rejects(readLgx(rawLgx(entries)), re, JSON.stringify(entries[1]));
    assert.throws(() => packLgx(manifest(), [file('variants/node/../x', 'x')]), /'\.\.' segment/);
    assert.throws(
      () => packLgx(manifest({ main: { node: 'missing.mjs' } }), [file('variants/node/module.mjs', 'x')]),
      /non-existent file/,
    );
  });

  test('install writes the node variant and the manifest; a reinstall replaces it; a failed one changes nothing', async () => {
    const modules = join(dir, 'modules');
    const v1 = await readLgx(
      packLgx(manifest(), [file('variants/node/module.mjs', 'v1'), file('variants/node/old.txt', 'old')])
        .bytes,
    );
    const target = installPackage(modules, v1);
    assert.equal(target, join(modules, 'demo_module'));
    assert.equal(readFileSync(join(target, 'module.mjs'), 'utf8'), 'v1');
    assert.equal(JSON.parse(readFileSync(join(target, 'manifest.json'), 'utf8')).hashes.root, v1.rootHash);
    const v2 = await readLgx(
      packLgx(manifest({ version: '1.0.1' }), [file('variants/node/module.mjs', 'v2')]).bytes,
    );
    installPackage(modules, v2);
    assert.equal(readFileSync(join(target, 'module.mjs'), 'utf8'), 'v2');
    assert.equal(existsSync(join(target, 'old.txt')), false, 'no file of the previous version is left');
    const noNode = await readLgx(
      packLgx(manifest({ main: { 'linux-amd64': 'lib.so' } }), [file('variants/linux-amd64/lib.so', 'x')])
        .bytes,
    );
    assert.throws(
      () => installPackage(modules, noNode),
      /no 'node' variant for this runtime \(it has: linux-amd64\)/,
    );
    assert.equal(readFileSync(join(target, 'module.mjs'), 'utf8'), 'v2', 'the previous install is intact');
    assert.deepEqual(readdirSync(modules), ['demo_module'], 'no temporary folder is left');
  });
});

describe('manifest versions', () => {
  test('a version that is not semver-like (a path) is refused; a semver one is read', () => {
    const text = (version: string): string => JSON.stringify(manifest({ version }));
    assert.equal(parseManifest(text('2.0.0-rc.1+b7')).version, '2.0.0-rc.1+b7');
    for (const v of ['1/../../../../../../tmp/owned', '1..2', '../x', 'a b', '1\\x'])
      assert.throws(() => parseManifest(text(v)), /invalid 'version'/, v);
  });
});
