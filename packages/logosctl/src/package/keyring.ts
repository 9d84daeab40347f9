/**
 * The session keyring of trusted package signers (operator.md §1.2 `keyring/`, §1.3 `key ls | add NAME --did
 * DID [--display-name N] [--url U] | remove NAME`; logos-package-manager-module README "Keyring
 * Management"): one `<keyring>/<name>.json` per key, `{name, did, displayName, url, addedAt}`, mode 600.
 * A DID is `did:jwk:<base64url of a JSON Web Key>` whose key is Ed25519 (`kty` OKP, `crv` Ed25519, `x`
 * 32 bytes), as logos-package's `publicKeyToDid` writes it. Names: letters, digits, `_`, `-`, `.`, at most
 * 64, not starting with `.` or `-` (the reference's token-name rule; inferred for keys).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KeyringError } from './errors.ts';

export interface TrustedKey {
  readonly name: string;
  readonly did: string;
  readonly displayName: string;
  readonly url: string;
  readonly addedAt: string;
}

export const SAFE_NAME_RE = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

/** Checks a `did:jwk` Ed25519 identifier; throws `KeyringError` with the reason. */
export function checkDid(did: string): void {
  const prefix = 'did:jwk:';
  if (!did.startsWith(prefix)) throw new KeyringError(`Not a did:jwk identifier: ${did}`);
  const body = did.slice(prefix.length);
  if (!/^[A-Za-z0-9_-]+$/.test(body) || body.length > 1024)
    throw new KeyringError('The did:jwk key is not base64url text');
  let jwk: unknown;
  try {
    jwk = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw new KeyringError('The did:jwk key is not a JSON Web Key');
  }
  const k = jwk as { kty?: unknown; crv?: unknown; x?: unknown };
  if (k?.kty !== 'OKP' || k.crv !== 'Ed25519' || typeof k.x !== 'string')
    throw new KeyringError('The did:jwk key must be an Ed25519 key (kty OKP, crv Ed25519)');
  if (Buffer.from(k.x, 'base64url').length !== 32)
    throw new KeyringError('The Ed25519 public key must be 32 bytes');
}

export class Keyring {
  constructor(readonly dir: string) {}

  list(): TrustedKey[] {
    if (!existsSync(this.dir)) return [];
    const out: TrustedKey[] = [];
    for (const f of readdirSync(this.dir)) {
      if (!f.endsWith('.json')) continue;
      try {
        const k = JSON.parse(readFileSync(join(this.dir, f), 'utf8')) as TrustedKey;
        if (typeof k.name === 'string' && typeof k.did === 'string') out.push(k);
      } catch {
        // an unreadable key file is not a trusted key
      }
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  add(name: string, did: string, displayName: string, url: string): TrustedKey {
    if (!SAFE_NAME_RE.test(name))
      throw new KeyringError(
        `Invalid key name '${name}': letters, digits, _ - . (at most 64), not starting with . or -`,
      );
    checkDid(did);
    const path = join(this.dir, `${name}.json`);
    if (existsSync(path)) throw new KeyringError(`A trusted key named '${name}' already exists`);
    const key: TrustedKey = { name, did, displayName, url, addedAt: new Date().toISOString() };
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    writeFileSync(path, `${JSON.stringify(key, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  }

  remove(name: string): void {
    if (!SAFE_NAME_RE.test(name)) throw new KeyringError(`Invalid key name '${name}'`);
    const path = join(this.dir, `${name}.json`);
    if (!existsSync(path)) throw new KeyringError(`No trusted key named '${name}'`);
    rmSync(path);
  }
}
