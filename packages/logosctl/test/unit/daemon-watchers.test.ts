/**
 * The daemon's event subscriptions: a watcher gets its module's events (of one event when it names
 * one), a watch of a module that is not loaded is refused with `MODULE_NOT_LOADED`, a watcher that does
 * not read is dropped, and unloading a module ends its watchers.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import pino from 'pino';
import { Watchers } from '../../src/daemon-watchers.ts';

class FakeSocket extends EventEmitter {
  lines: unknown[] = [];
  ended = false;
  destroyed = false;
  writableLength = 0;
  write(s: string): boolean {
    this.lines.push(JSON.parse(s));
    return true;
  }
  end(): void {
    this.ended = true;
    this.emit('close');
  }
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

const log = pino({ level: 'silent' });
const sock = () => new FakeSocket();
const asSocket = (s: FakeSocket) => s as unknown as Socket;

test('a watcher gets its module events, filtered by event; others are not sent', () => {
  const w = new Watchers(log);
  const all = sock();
  const one = sock();
  w.watch('m', undefined, asSocket(all), true);
  w.watch('m', 'tick', asSocket(one), true);
  assert.deepEqual(all.lines, [{ status: 'ok', module: 'm', watching: '*' }]);
  assert.deepEqual(one.lines, [{ status: 'ok', module: 'm', watching: 'tick' }]);
  w.publish('m', 'tick', 1);
  w.publish('m', 'tock', 2);
  w.publish('other', 'tick', 3);
  assert.deepEqual(all.lines.slice(1), [
    { module: 'm', event: 'tick', data: 1 },
    { module: 'm', event: 'tock', data: 2 },
  ]);
  assert.deepEqual(one.lines.slice(1), [{ module: 'm', event: 'tick', data: 1 }]);
});

test('a watch of a module that is not loaded is refused and closed', () => {
  const w = new Watchers(log);
  const s = sock();
  w.watch('m', undefined, asSocket(s), false);
  assert.deepEqual(s.lines, [
    {
      status: 'error',
      code: 'MODULE_NOT_LOADED',
      message: "Module 'm' is not loaded. Load it with: logosctl module load m",
    },
  ]);
  assert.equal(s.ended, true);
  w.publish('m', 'tick', 1);
  assert.equal(s.lines.length, 1);
});

test('a watcher that does not read is dropped; unloading a module ends its watchers', () => {
  const w = new Watchers(log);
  const slow = sock();
  const a = sock();
  const b = sock();
  w.watch('m', undefined, asSocket(slow), true);
  w.watch('m', undefined, asSocket(a), true);
  w.watch('n', undefined, asSocket(b), true);
  slow.writableLength = 9 * 1024 * 1024;
  w.publish('m', 'tick', 1);
  assert.equal(slow.destroyed, true);
  assert.equal(slow.lines.length, 1);
  assert.equal(a.lines.length, 2);
  w.endModule('m');
  assert.equal(a.ended, true);
  assert.equal(b.ended, false);
  w.endAll();
  assert.equal(b.ended, true);
});
