/**
 * Fetching catalog documents and packages by URL (operator.md §1.7, §6.1: the catalog must work offline
 * through `file:` or a loopback HTTP server). `file:`, `http:` and `https:` are read, each within a byte
 * limit checked before the bytes are kept (the declared length first, then the running total);
 * `logos:<network>:<cid>` (Logos Storage) is refused with a clear message, as is any other scheme.
 * The reference downloader accepts https only; `file:` and `http:` are this tool's choice for offline use.
 */
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FetchError } from './errors.ts';

const TIMEOUT_MS = 30_000;

/** Parses a catalog or package URL; throws `FetchError` for a scheme this tool does not read. */
export function checkUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new FetchError(`Not a URL: ${url}`);
  }
  if (u.protocol === 'logos:')
    throw new FetchError(
      `${url}: logos: URLs are served over Logos Storage, which this tool does not fetch from; use an https:, http: or file: URL`,
    );
  if (u.protocol !== 'file:' && u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new FetchError(
      `${url}: unsupported URL scheme ${u.protocol} (file:, http: and https: are supported)`,
    );
  return u;
}

/** The bytes at `url`, at most `maxBytes` of them. */
export async function fetchBytes(url: string, maxBytes: number): Promise<Buffer> {
  const u = checkUrl(url);
  if (u.protocol === 'file:') {
    const path = fileURLToPath(u);
    let size: number;
    try {
      const st = statSync(path);
      if (!st.isFile()) throw new FetchError(`${url}: not a file`);
      size = st.size;
    } catch (e) {
      if (e instanceof FetchError) throw e;
      throw new FetchError(`${url}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    if (size > maxBytes) throw new FetchError(`${url}: ${size} bytes, over the limit of ${maxBytes}`);
    return readFileSync(path);
  }
  let res: Response;
  try {
    res = await fetch(u, { redirect: 'follow', signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (e) {
    throw new FetchError(`${url}: ${(e as Error).message}`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new FetchError(`${url}: HTTP ${res.status}`);
  }
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel();
    throw new FetchError(`${url}: ${declared} bytes, over the limit of ${maxBytes}`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  if (res.body) {
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      total += chunk.length;
      if (total > maxBytes) {
        await res.body.cancel().catch(() => undefined);
        throw new FetchError(`${url}: more than ${maxBytes} bytes`);
      }
      chunks.push(Buffer.from(chunk));
    }
  }
  return Buffer.concat(chunks);
}
