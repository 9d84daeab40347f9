/**
 * Matching of a raw request path (not percent-decoded) against the route table, for the requests
 * the router cannot route itself: CORS preflights (which route would the real request reach?) and
 * paths whose parameters do not percent-decode (which route's parameter is malformed?).
 */
import { pathParamNames } from './route-def.ts';
import type { ServerRoute } from './types.ts';

export interface RawMatch {
  readonly route: ServerRoute;
  /** Path parameters as they appear in the path, still percent-encoded. */
  readonly rawParams: Readonly<Record<string, string>>;
}

export class RouteMatcher {
  private readonly compiled: readonly { route: ServerRoute; re: RegExp; names: string[] }[];

  constructor(routes: readonly ServerRoute[]) {
    this.compiled = routes.map((route) => {
      const pattern = route.def.path
        .split(/\{\w+\}/)
        .map((s) => s.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
        .join('([^/]+)');
      return { route, re: new RegExp(`^${pattern}$`), names: pathParamNames(route.def.path) };
    });
  }

  /** The routes whose path matches `rawPath` (the query, if any, is ignored). */
  match(rawUrl: string): RawMatch[] {
    const q = rawUrl.indexOf('?');
    const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const out: RawMatch[] = [];
    for (const { route, re, names } of this.compiled) {
      const m = re.exec(path);
      if (m) out.push({ route, rawParams: Object.fromEntries(names.map((n, i) => [n, m[i + 1]!])) });
    }
    return out;
  }
}

/**
 * Percent-decodes a path segment as the reference's router does: `%XX` sequences are decoded and
 * anything else (a `%` not followed by two hex digits) is kept as written. Undefined when the
 * decoded bytes are not UTF-8.
 */
export function lenientPercentDecode(segment: string): string | undefined {
  const bytes: number[] = [];
  const enc = new TextEncoder();
  for (let i = 0; i < segment.length; ) {
    if (segment[i] === '%' && /^[0-9a-fA-F]{2}$/.test(segment.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(segment.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      const cp = segment.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      bytes.push(...enc.encode(ch));
      i += ch.length;
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    return undefined;
  }
}
