/**
 * The error convention: DOMAIN_SNAKE codes, typed metadata from which the message is rendered, and
 * errors that cross a worker boundary intact (toObject → structured clone → fromObject).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { LogosError } from '@logos-ts/shared/errors';
import { InvalidUncle } from '../../../src/chain/uncles.ts';
import { LedgerError, ledgerErrorCode } from '../../../src/ledger/errors.ts';
import { StorageError } from '../../../src/storage/errors.ts';

const DOMAIN_SNAKE = /^[A-Z0-9]+(_[A-Z0-9]+)+$/;

test('ledger codes are LEDGER_ + the variant in snake case; the variant stays in the metadata', () => {
  assert.equal(ledgerErrorCode('InputNotFound'), 'LEDGER_INPUT_NOT_FOUND');
  assert.equal(ledgerErrorCode('InvalidEd25519Signature'), 'LEDGER_INVALID_ED25519_SIGNATURE');
  const e = new LedgerError('InsufficientBalance', 'inputs 3 < outputs 5', { opIndex: 2 });
  assert.equal(e.code, 'LEDGER_INSUFFICIENT_BALANCE');
  assert.match(e.code, DOMAIN_SNAKE);
  assert.equal(e.ledgerCode, 'InsufficientBalance');
  assert.deepEqual(e.meta, { ledgerCode: 'InsufficientBalance', detail: 'inputs 3 < outputs 5', opIndex: 2 });
  assert.equal(e.message, 'InsufficientBalance (op 2): inputs 3 < outputs 5');
});

test('inTx locates an error from its metadata, whatever its detail looks like', () => {
  // A detail that itself looks like a rendered message is kept whole (it used to be cut by a regex).
  const e = new LedgerError('InputNotFound', 'Note (abc): missing', { opIndex: 1 });
  const located = e.inTx(4);
  assert.equal(located.meta.detail, 'Note (abc): missing');
  assert.equal(located.txIndex, 4);
  assert.equal(located.opIndex, 1);
  assert.equal(located.message, 'InputNotFound (tx 4, op 1): Note (abc): missing');
  assert.equal(located.inTx(5).message, 'InputNotFound (tx 5, op 1): Note (abc): missing');
});

test('uncle errors: UNCLE_ codes, the reference variant and the uncle in the metadata', () => {
  const e = new InvalidUncle('ParentNotOnChain', 'ab'.repeat(32));
  assert.equal(e.code, 'UNCLE_PARENT_NOT_ON_CHAIN');
  assert.equal(e.reason, 'ParentNotOnChain');
  assert.equal(e.uncle, 'ab'.repeat(32));
  assert.match(e.message, /parent not on the chain/);
});

test('an error survives a structured clone through toObject/fromObject, class and metadata included', () => {
  const cause = new StorageError('STORAGE_SCHEMA', 'schema version 9');
  const e = new LedgerError('InvalidSlot', 'slot 1 is not after parent slot 10', { txIndex: 3 });
  const wrapped = new LogosError('TEST_WRAPPED', 'outer', {
    cause: e,
    meta: { slot: 12n, id: new Uint8Array([1, 2]) },
  });
  const back = LogosError.fromObject(structuredClone(wrapped.toObject()));
  assert.ok(back instanceof LogosError);
  assert.equal(back.code, 'TEST_WRAPPED');
  assert.equal(back.message, 'outer');
  assert.deepEqual(back.meta, { slot: 12n, id: new Uint8Array([1, 2]) });
  const inner = back.cause;
  assert.ok(inner instanceof LedgerError);
  assert.equal(inner.code, 'LEDGER_INVALID_SLOT');
  assert.equal(inner.ledgerCode, 'InvalidSlot');
  assert.equal(inner.txIndex, 3);
  assert.equal(inner.message, e.message);
  assert.equal(inner.inTx(7).message, 'InvalidSlot (tx 7): slot 1 is not after parent slot 10');

  const s = LogosError.fromObject(structuredClone(cause.toObject()));
  assert.ok(s instanceof StorageError);
  assert.equal(s.code, 'STORAGE_SCHEMA');

  // A plain Error cause keeps its name and message.
  const plain = new LogosError('TEST_PLAIN', 'x', { cause: new TypeError('bad') });
  const p = LogosError.fromObject(structuredClone(plain.toObject()));
  assert.ok(p.cause instanceof Error);
  assert.equal((p.cause as Error).name, 'TypeError');
  assert.equal((p.cause as Error).message, 'bad');
});

test('an error thrown in a worker arrives in the main thread with its class and metadata', async () => {
  const src = `
    const { parentPort } = require('node:worker_threads');
    parentPort.once('message', (obj) => parentPort.postMessage(obj));
  `;
  const w = new Worker(src, { eval: true });
  try {
    const e = new LedgerError('DuplicateNote', 'note 0x01 exists', { txIndex: 0, opIndex: 1 });
    const echoed = await new Promise((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
      w.postMessage(e.toObject());
    });
    const back = LogosError.fromObject(echoed as Parameters<typeof LogosError.fromObject>[0]);
    assert.ok(back instanceof LedgerError);
    assert.deepEqual(back.meta, e.meta);
    assert.equal(back.message, e.message);
    assert.equal(back.code, 'LEDGER_DUPLICATE_NOTE');
  } finally {
    await w.terminate();
  }
});

test('engine errors: ENGINE_ codes, the reference variant in the metadata', async () => {
  const { EngineError } = await import('../../../src/consensus/engine.ts');
  const e = new EngineError('ParentMissing', 'parent x of block y is not in the tree');
  assert.equal(e.code, 'ENGINE_PARENT_MISSING');
  assert.equal(e.reason, 'ParentMissing');
  assert.equal(new EngineError('InvalidParams', 'k').code, 'ENGINE_INVALID_PARAMS');
  const back = LogosError.fromObject(structuredClone(e.toObject()));
  assert.ok(back instanceof EngineError);
  assert.equal(back.reason, 'ParentMissing');
});

test('every error code written in the source is upper snake case with a domain prefix', async () => {
  const { readdirSync, readFileSync, statSync } = await import('node:fs');
  const { join, resolve } = await import('node:path');
  const walk = (d: string): string[] =>
    readdirSync(d).flatMap((n) => {
      const p = join(d, n);
      return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
    });
  const bad: string[] = [];
  for (const f of walk(resolve(import.meta.dirname, '../../../src'))) {
    const text = readFileSync(f, 'utf8');
    // Codes given to LogosError's constructor directly, and to BlockError / StorageError / BlockRejected.
    for (const m of text.matchAll(/(?:super|new (?:BlockError|StorageError|BlockRejected))\(\s*'([^']*)'/g)) {
      if (!DOMAIN_SNAKE.test(m[1]!)) bad.push(`${f}: ${m[1]}`);
    }
  }
  assert.deepEqual(bad, []);
});
