/**
 * The running node's HTTP API as the blockchain module reads it: the module calls its own node's
 * endpoints on the bound address (loopback when it listens on every interface), as the reference
 * module reaches the node's services through its C bindings. A failure answers the node's message
 * (`{code, message}` bodies), as the reference module passes the node's error text on (operator.md §2.2).
 */
import { isJsonObject, type Json, parseJson, stringifyJson } from '@logos-ts/shared/json';
import { NodeCallError } from './errors.ts';

/** The loopback URL of an API bound at `host:port` (a wildcard host is reached on the loopback). */
export function apiBaseUrl(listening: string): string {
  const i = listening.lastIndexOf(':');
  let host = listening.slice(0, i);
  const port = listening.slice(i + 1);
  if (host === '0.0.0.0' || host === '') host = '127.0.0.1';
  if (host === '::' || host === '[::]') host = '[::1]';
  if (host.includes(':') && !host.startsWith('[')) host = `[${host}]`;
  return `http://${host}:${port}`;
}

export class NodeApi {
  constructor(private readonly baseUrl: string) {}

  /** The response text of a call; a status other than 2xx throws `NodeCallError` with the node's message. */
  async text(method: 'GET' | 'POST', path: string, body?: Json): Promise<string> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      ...(body !== undefined
        ? { body: stringifyJson(body), headers: { 'content-type': 'application/json' } }
        : {}),
    });
    const text = await res.text();
    if (res.status < 200 || res.status > 299)
      throw new NodeCallError(res.status, failureMessage(res.status, text));
    return text;
  }

  /** The parsed JSON answer of a call (u64 values above 2^53 exact, as bigint). */
  async json(method: 'GET' | 'POST', path: string, body?: Json): Promise<Json> {
    return parseJson(await this.text(method, path, body));
  }
}

function failureMessage(status: number, text: string): string {
  try {
    const j = parseJson(text);
    if (isJsonObject(j) && typeof j.message === 'string') return j.message;
  } catch {
    // A plain-text body (a request the node's decoder refused): its text is the message.
  }
  return text.trim() !== '' ? text.trim() : `the node answered HTTP ${status}`;
}
