/**
 * `POST /x/admin/keys/reload` answers only on the loopback interface: a request from another address
 * of this machine gets 403 and the node's keys are not read again; from the loopback it answers what
 * changed, and a refused reload is a 400 with the reason.
 */
import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { test } from 'node:test';
import { ConfigError } from '@logos-ts/shared/config-fields';
import { pino } from 'pino';
import { ROUTES } from '../../../src/api/impl/index.ts';
import { ApiServer } from '../../../src/api/server.ts';
import { devnetConfig } from '../../../src/node/devnet.ts';
import { apiContext } from '../../mocks/api-context.ts';

const RELOADED = {
  kms: { added: ['ab'], removed: [], changed: [] },
  wallet: { added: ['ab'], removed: [] },
  leader_keys: 1,
};

test('the key reload answers the loopback only (403 from another address); a refusal is a 400', async (t) => {
  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i !== undefined && !i.internal && i.family === 'IPv4')?.address;
  let calls = 0;
  let refuse = false;
  const ctx = apiContext({
    reloadKeys: () => {
      calls++;
      if (refuse) throw new ConfigError('kms.backend.keys.x: the secret key is not hex');
      return RELOADED;
    },
  });
  const backend = {
    ...devnetConfig().api.backend,
    listen_address: '0.0.0.0:0',
    allowed_hosts: external ? [external] : [],
  };
  const server = await ApiServer.init({ backend, insecureBinding: true }, pino({ level: 'silent' }), ROUTES);
  t.after(() => server.close());
  const port = Number((await server.serve(ctx)).split(':').pop());
  const post = (host: string) => fetch(`http://${host}:${port}/x/admin/keys/reload`, { method: 'POST' });

  const ok = await post('127.0.0.1');
  assert.equal(ok.status, 200);
  assert.deepEqual(await ok.json(), RELOADED);
  assert.equal(calls, 1);

  refuse = true;
  const refused = await post('127.0.0.1');
  assert.equal(refused.status, 400);
  assert.deepEqual(await refused.json(), {
    code: 400,
    message: 'kms.backend.keys.x: the secret key is not hex',
  });

  if (external === undefined) return t.skip('no address of this machine other than the loopback');
  const far = await post(external);
  assert.equal(far.status, 403);
  assert.deepEqual(await far.json(), {
    code: 403,
    message: 'this endpoint answers only on the loopback interface',
  });
  assert.equal(calls, 2, 'a request from another address does not reload');
});
