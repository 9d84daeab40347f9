/**
 * `sdp post-blend-declaration`: declares a running node as a Blend core node from the command line,
 * as the reference's API tool does (F tools/blockchain-tools/src/bin/api.rs `post_blend_declaration`).
 * It reads the node's user_config.yaml for its SDP funding key and its Blend Zk key, checks through the
 * node's API that the funding key holds funds and that the note to lock belongs to the Blend Zk key,
 * then posts `POST /blend/join` with the Blend address and the note. Nothing is posted when a check
 * fails; every request is bounded in time.
 */
import { LogosError } from '@logos-ts/shared/errors';
import { readConfigFile } from './load.ts';

export interface BlendDeclarationArgs {
  readonly userConfigPath: string;
  /** The Blend locator to declare, a `/ip4/<ip>/udp/<port>/quic-v1` multiaddr. */
  readonly blendAddr: string;
  /** Hex id of the note to lock. */
  readonly lockedNoteId: string;
  /** Base URL of the node's API (default http://localhost:8080). */
  readonly nodeAddress: string;
  readonly username?: string;
  readonly password?: string;
  /** Per request; default 30 s. */
  readonly timeoutMs?: number;
}

export class BlendDeclarationError extends LogosError {}
LogosError.register(BlendDeclarationError);

const fail = (message: string) => new BlendDeclarationError('BLEND_DECLARATION', message);

/** Posts the declaration; resolves with its declaration id. */
export async function postBlendDeclaration(a: BlendDeclarationArgs): Promise<string> {
  if (!/^[0-9a-fA-F]{64}$/.test(a.lockedNoteId))
    throw fail(`--locked-note-id: expected 64 hex digits, got ${JSON.stringify(a.lockedNoteId)}`);
  const config = readConfigFile(a.userConfigPath);
  const funding = config.sdp.wallet.funding_pk;
  if (funding === null) throw fail(`${a.userConfigPath}: sdp.wallet.funding_pk is not set`);
  const zkId = config.blend.core_zk_secret_key_kms_id;
  if (zkId === null) throw fail(`${a.userConfigPath}: blend.core.zk.secret_key_kms_id is not set`);
  // inferred: the Blend Zk public key is the wallet's known key of that id (F derives it from the
  // key store and checks that the wallet's known key matches it).
  const zkPk = config.wallet.known_keys[zkId];
  if (zkPk === undefined)
    throw fail(`ZK ID '${zkId}' extracted from config was not found in wallet known keys`);
  const base = a.nodeAddress.replace(/\/+$/, '');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (a.username !== undefined)
    headers.authorization = `Basic ${Buffer.from(`${a.username}:${a.password ?? ''}`).toString('base64')}`;
  const call = async (path: string, body?: unknown): Promise<unknown> => {
    let r: Response;
    try {
      r = await fetch(`${base}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(a.timeoutMs ?? 30_000),
      });
    } catch (e) {
      throw fail(`${path}: the node at ${base} did not answer (${(e as Error).message})`);
    }
    const text = await r.text();
    if (!r.ok) throw fail(`${path}: ${r.status} ${text}`);
    return JSON.parse(text) as unknown;
  };
  const balance = (await call(`/wallet/${funding}/balance`)) as { balance?: number | string };
  if (BigInt(balance.balance ?? 0) === 0n)
    throw fail('The provided SDP wallet funding key does not have any balance');
  const notes = ((await call(`/wallet/${zkPk}/balance`)) as { notes?: Record<string, unknown> }).notes ?? {};
  if (!Object.keys(notes).some((id) => id.toLowerCase() === a.lockedNoteId.toLowerCase()))
    throw fail(`Locked note ID '${a.lockedNoteId}' was not found in wallet notes for provided Blend ZK ID`);
  const posted = (await call('/blend/join', {
    locator: a.blendAddr,
    service_note_id: a.lockedNoteId.toLowerCase(),
  })) as { declaration_id: string };
  return posted.declaration_id;
}
