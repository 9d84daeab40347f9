/**
 * Circuit folders in the reference's layout: what is checked before the node opens its storage (every
 * needed file, the number of public inputs of each key, a readable proving key, the manifest's pins),
 * which circuits are proved and which only verified, the choice of folder, the `proofs` config section,
 * and the zkey and witness readers on hostile input.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseUserConfig } from '../../../src/node/config.ts';
import { bytesSource } from '../../../src/zk/binfile.ts';
import {
  CIRCUITS,
  chooseCircuitsDir,
  loadCircuitFolder,
  SHIPPED_CIRCUITS_DIR,
} from '../../../src/zk/circuit-folder.ts';
import { readWitness } from '../../../src/zk/witness-file.ts';
import { readZkeyHeader } from '../../../src/zk/zkey-header.ts';
import { testCircuitFolder } from '../../utils/circuit-folders.ts';

/** A copy of the shipped folder, changed by `edit`, loaded; the folder is removed after. */
function loadEdited(edit: (dir: string) => void, keepManifest = false): ReturnType<typeof loadCircuitFolder> {
  const dir = mkdtempSync(join(tmpdir(), 'circuits-'));
  try {
    cpSync(SHIPPED_CIRCUITS_DIR, dir, { recursive: true });
    if (!keepManifest) unlinkSync(join(dir, 'manifest.json'));
    edit(dir);
    return loadCircuitFolder(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('loading a circuits folder', () => {
  test('the shipped folder: every circuit proved and verified, the files pinned', () => {
    const f = loadCircuitFolder(SHIPPED_CIRCUITS_DIR);
    assert.equal(f.pinned, true);
    for (const c of CIRCUITS) {
      assert.ok(f.circuits[c].prover, c);
      assert.equal(f.circuits[c].cannotProve, undefined);
    }
    assert.equal(f.circuits.zksig.dir, join(SHIPPED_CIRCUITS_DIR, 'signature'));
    assert.equal(f.circuits.pol.constraints, 20429);
  });

  test('a missing circuit folder or verification key is refused, naming it', () => {
    assert.throws(
      () => loadEdited((d) => rmSync(join(d, 'poq'), { recursive: true })),
      /missing circuit folder .*\/poq$/,
    );
    assert.throws(
      () => loadEdited((d) => unlinkSync(join(d, 'signature', 'verification_key.json'))),
      /missing verification key .*\/signature\/verification_key\.json/,
    );
    assert.throws(
      () => loadCircuitFolder('/nonexistent/circuits'),
      /circuits folder \/nonexistent\/circuits does not exist/,
    );
  });

  test("a verification key whose number of public inputs is not the circuit's is refused", () => {
    assert.throws(
      () =>
        loadEdited((d) =>
          cpSync(join(d, 'poc', 'verification_key.json'), join(d, 'pol', 'verification_key.json')),
        ),
      /verification key .*\/pol\/verification_key\.json has 3 public inputs; the pol circuit has 9/,
    );
    assert.throws(
      () => loadEdited((d) => writeFileSync(join(d, 'poc', 'verification_key.json'), '{"protocol":')),
      /verification key .*\/poc\/verification_key\.json is not JSON/,
    );
    assert.throws(
      () =>
        loadEdited((d) => {
          const p = join(d, 'poc', 'verification_key.json');
          writeFileSync(p, readFileSync(p, 'utf8').replace('"groth16"', '"plonk"'));
        }),
      /poc\/verification_key\.json is not a Groth16 key on bn128/,
    );
  });

  test('an unreadable or foreign proving key is refused, naming it', () => {
    assert.throws(
      () => loadEdited((d) => truncateSync(join(d, 'poc', 'proving_key.zkey'), 100)),
      /proving key .*\/poc\/proving_key\.zkey cannot be read: zkey file truncated/,
    );
    assert.throws(
      () => loadEdited((d) => writeFileSync(join(d, 'poq', 'proving_key.zkey'), 'not a key at all')),
      /proving key .*\/poq\/proving_key\.zkey cannot be read: not a zkey file/,
    );
    assert.throws(
      () => loadEdited((d) => cpSync(join(d, 'pol', 'proving_key.zkey'), join(d, 'poc', 'proving_key.zkey'))),
      /proving key .*\/poc\/proving_key\.zkey has 9 public inputs; the poc circuit has 3/,
    );
    assert.throws(
      () => loadEdited((d) => unlinkSync(join(d, 'poc', 'proving_key.zkey'))),
      /missing proving key .*\/poc\/proving_key\.zkey \(the folder has witness_generator\.wasm\)/,
    );
  });

  test("a file that differs from the manifest's pin is refused", () => {
    assert.throws(
      () =>
        loadEdited((d) => {
          const p = join(d, 'poc', 'verification_key.json');
          writeFileSync(p, readFileSync(p, 'utf8').replace('"protocol"', '"protocol" '));
        }, true),
      /poc\/verification_key\.json has sha256 [0-9a-f]{64}, the manifest pins/,
    );
  });

  test("a circuit with only the reference's native witness generator is verified, not proved", () => {
    const t = testCircuitFolder({ verifyOnly: ['zksig', 'poq'] });
    try {
      const f = loadCircuitFolder(t.dir);
      assert.equal(f.pinned, false);
      assert.equal(f.circuits.zksig.prover, undefined);
      assert.match(
        f.circuits.zksig.cannotProve ?? '',
        /signature has the reference's native witness generator/,
      );
      assert.match(f.circuits.poq.cannotProve ?? '', /poq has the reference's native witness generator/);
      assert.ok(f.circuits.pol.prover);
      assert.ok(f.circuits.poc.prover);
      unlinkSync(join(t.dir, 'poq', 'witness_generator.dat'));
      assert.match(
        loadCircuitFolder(t.dir).circuits.poq.cannotProve ?? '',
        /poq has no witness generator this node can run \(witness_generator\.wasm\)/,
      );
    } finally {
      t.remove();
    }
  });
});

describe('choosing the folder', () => {
  test('--circuits, then proofs.circuits, then LBC_ROOT_DIR, then the shipped folder', () => {
    const env = { LBC_ROOT_DIR: '/env/circuits' };
    assert.deepEqual(
      chooseCircuitsDir({ option: '/opt/c', config: 'cfg', configBaseDir: '/etc/node', env }),
      {
        dir: '/opt/c',
        from: 'option',
      },
    );
    assert.deepEqual(chooseCircuitsDir({ config: 'cfg', configBaseDir: '/etc/node', env }), {
      dir: '/etc/node/cfg',
      from: 'config',
    });
    assert.deepEqual(chooseCircuitsDir({ env }), { dir: '/env/circuits', from: 'LBC_ROOT_DIR' });
    assert.deepEqual(chooseCircuitsDir({ env: {} }), { dir: SHIPPED_CIRCUITS_DIR, from: 'shipped' });
  });

  test('the proofs section of the config', () => {
    assert.equal(parseUserConfig('{}').proofs.circuits, null);
    assert.equal(parseUserConfig('proofs:\n  circuits: ./circuits\n').proofs.circuits, './circuits');
    assert.throws(() => parseUserConfig('proofs:\n  circuits: 3\n'), /proofs\.circuits: expected a string/);
    assert.throws(() => parseUserConfig('proofs:\n  prover: x\n'), /proofs\.prover: unknown key/);
    assert.equal(parseUserConfig('{}').proofs.backend, 'wasm');
    assert.equal(parseUserConfig('proofs:\n  backend: snarkjs\n').proofs.backend, 'snarkjs');
    assert.equal(parseUserConfig('proofs:\n  backend: wasm\n  circuits: c\n').proofs.backend, 'wasm');
    assert.throws(
      () => parseUserConfig('proofs:\n  backend: rapidsnark\n'),
      /proofs\.backend: expected one of wasm, snarkjs/,
    );
  });
});

describe('zkey and witness readers', () => {
  test('the zkey header of a shipped key', () => {
    const h = readZkeyHeader(
      bytesSource(readFileSync(join(SHIPPED_CIRCUITS_DIR, 'poc', 'proving_key.zkey'))),
    );
    assert.equal(h.nPublic, 3);
    assert.ok(h.domainSize >= 8192);
  });

  test('hostile files are refused before any large allocation', () => {
    const header = (magic: string, sections: number) => {
      const b = new Uint8Array(12 + 12);
      b.set(new TextEncoder().encode(magic), 0);
      const v = new DataView(b.buffer);
      v.setUint32(4, 1, true);
      v.setUint32(8, sections, true);
      v.setUint32(12, 1, true);
      v.setBigUint64(16, 2n ** 60n, true); // a section claiming an exabyte
      return b;
    };
    assert.throws(
      () => readZkeyHeader(bytesSource(header('zkey', 1))),
      /section 1 claims 1152921504606846976 bytes/,
    );
    assert.throws(() => readWitness(bytesSource(header('wtns', 1))), /truncated/);
    assert.throws(() => readWitness(bytesSource(header('wtns', 1_000_000))), /1000000 sections/);
    assert.throws(() => readWitness(bytesSource(new Uint8Array(5))), /not a wtns file/);
  });
});
