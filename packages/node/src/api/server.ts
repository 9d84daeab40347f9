/**
 * The HTTP API server (fastify), driven by the route table. Reference behaviour around the routes:
 * compact JSON with exact u64 values; requests decoded through the table (decode.ts) with plain-text
 * 400/415/422 rejections; `{code, message}` JSON for handled failures; an empty 404 for unknown
 * paths; an empty 408 after the API timeout; an empty 400/431 for what is not HTTP at all; CORS for
 * any origin unless `cors_origins` restricts it; at most `max_concurrent_requests` requests handled at
 * once (the others wait, within the timeout); the endpoints gated while Bootstrapping wait for Online.
 * Beyond the reference: the `Host` and `Origin` checks of guard.ts, and optional authentication
 * (auth.ts), without which it serves only on a loopback address unless told otherwise.
 */
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { Socket } from 'node:net';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { ConfigError } from '@logos-ts/shared/config-fields';
import { LogosError } from '@logos-ts/shared/errors';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { listenFailure, splitHostPort } from '../util/listen.ts';
import { Semaphore } from '../util/semaphore.ts';
import { withProofDeadline } from '../zk/index.ts';
import { ApiAuth, isLoopbackHost } from './auth.ts';
import type { ApiServerOptions } from './config.ts';
import { decodeRequest, parseJsonBody, type RawRequest, unsupportedMediaType } from './decode.ts';
import { ApiError, Rejection } from './errors.ts';
import { installExplorer, isExplorerPath } from './explorer.ts';
import { RequestGuard } from './guard.ts';
import { ROUTES } from './impl/index.ts';
import { openApiDocument } from './openapi.ts';
import { routeMutates } from './route-def.ts';
import { lenientPercentDecode, RouteMatcher } from './route-match.ts';
import type { ApiContext, ApiReply, ApiStream, HandlerResult, RouteArgs, ServerRoute } from './types.ts';

export type { ApiServerOptions } from './config.ts';

const JSON_TYPE = 'application/json';
const TEXT_TYPE = 'text/plain; charset=utf-8';

/** The Swagger UI's top-bar logo: the node's name, in white on the bar. */
const SWAGGER_LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" width="180" height="40"><text x="0" y="28" font-family="sans-serif" ' +
  'font-size="22" font-weight="bold" fill="#fff">Logos node API</text></svg>';

/** What the server keeps of a route's definition in fastify's route config. */
interface RouteConfig {
  readonly mutates: boolean;
  /** The route's body is optional and lenient (`optionalBody`): one that does not parse counts as none. */
  readonly optionalBody?: boolean;
}

const optionalBodyOf = (req: FastifyRequest): boolean =>
  (req.routeOptions.config as Partial<RouteConfig> | undefined)?.optionalBody === true;

class Timeout extends Error {
  override readonly message = 'the API request timed out';
}
class ClientGone extends Error {
  override readonly message = 'the API client left';
}

/** Largest path parameter the router accepts; longer ones are the API's own 400 (the header limit bounds them). */
const MAX_PARAM_LENGTH = 65_536;

export class ApiServer {
  private readonly app: FastifyInstance;
  private address: string | undefined;
  private server!: Server;
  /** Requests that came in after binding and before `serve`; they are served once the API serves. */
  private held: [IncomingMessage, ServerResponse][] | undefined = [];
  private closing: Promise<void> | undefined;

  private readonly slots: Semaphore;
  private online: Promise<void> | undefined;
  private readonly guard: RequestGuard;
  private readonly auth: ApiAuth | undefined;
  private readonly matcher: RouteMatcher;

  /** The node's services, given by `serve`; until then every request is held, none is routed. */
  private services: ApiContext | undefined;

  private constructor(
    private readonly opts: ApiServerOptions,
    private readonly logger: Logger,
    /** The served routes: the node's table, or another for tests of the server itself. */
    private readonly routes: readonly ServerRoute[] = ROUTES,
  ) {
    this.slots = new Semaphore(opts.backend.max_concurrent_requests);
    this.guard = new RequestGuard(opts.backend);
    this.auth = opts.backend.auth ? new ApiAuth(opts.backend.auth) : undefined;
    this.matcher = new RouteMatcher(routes);
    this.app = Fastify({
      logger: false,
      bodyLimit: opts.backend.max_body_size,
      return503OnClosing: false,
      // Our own server, so that the socket can be bound before the routes are ready (see `bind`).
      serverFactory: (handler) => {
        this.server = createServer((req, res) => {
          if (this.held) this.hold(req, res);
          else handler(req, res);
        });
        return this.server;
      },
      // Stopping the node must not wait for idle keep-alive connections or open streams.
      forceCloseConnections: true,
      routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
      // A path the router cannot decode (a bad %-escape) or an over-long parameter: answered as the
      // reference does, from the table (a plain-text 400 naming the parameter, or an empty 404).
      frameworkErrors: (_err, req, reply) => this.unroutable(req, reply),
      // What is not HTTP at all (an over-long header, a malformed request line): the status alone.
      clientErrorHandler: (err: Error & { code?: string }, socket: Socket) => {
        if (err.code === 'ECONNRESET' || socket.destroyed) return;
        const status =
          err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
        if (socket.writable) {
          socket.write(
            `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`,
          );
        }
        socket.destroy();
      },
    });
    this.install();
  }

  /**
   * An API bound to its listen address that does not serve yet: requests that arrive before `serve`
   * wait for it. An address that cannot be bound is a `ConfigError` naming the key and why. A node binds
   * first so that a taken port stops it before it writes.
   */
  static async init(
    opts: ApiServerOptions,
    logger: Logger,
    /** The served routes: the node's table, or another for tests of the server itself. */
    routes: readonly ServerRoute[] = ROUTES,
  ): Promise<ApiServer> {
    const [host] = splitHostPort(opts.backend.listen_address);
    if (!isLoopbackHost(host) && !opts.backend.auth && opts.insecureBinding !== true)
      throw new ConfigError(
        `api.backend.listen_address: ${opts.backend.listen_address} can be reached from other machines and ` +
          "the API has no authentication (anyone reaching it could spend this node's funds): set " +
          'api.backend.auth, or start with --insecure-api-binding to serve it so anyway',
      );
    const api = new ApiServer(opts, logger, routes);
    try {
      await api.bind();
    } catch (e) {
      await api.close();
      throw new ConfigError(
        `api.backend.listen_address: cannot listen on ${opts.backend.listen_address}: ${listenFailure(e as NodeJS.ErrnoException)}`,
      );
    }
    return api;
  }

  /** The node's services; only read once `serve` gave them (requests are held until then). */
  private get ctx(): ApiContext {
    if (this.services === undefined) throw new ApiError(503, 'the API does not serve yet');
    return this.services;
  }

  /** The bound address, e.g. `127.0.0.1:8080` (the real port when 0 was asked). */
  get listening(): string | undefined {
    return this.address;
  }

  /** The OpenAPI document of the served routes, with the authentication asked for. */
  private openApi(): object {
    const a = this.opts.backend.auth;
    return openApiDocument(
      this.routes,
      a
        ? { mode: a.mode, bearer: a.bearer_token_hashes.length > 0, basic: a.basic_users.length > 0 }
        : undefined,
    );
  }

  /** Swagger UI at /swagger-ui/, its assets served by the node itself (no CDN), on the table's document. */
  private async installSwaggerUi(): Promise<void> {
    await this.app.register(swagger, {
      mode: 'static',
      specification: { document: this.openApi() as never },
    });
    await this.app.register(swaggerUi, {
      routePrefix: '/swagger-ui',
      logo: { type: 'image/svg+xml', content: SWAGGER_LOGO },
      theme: { title: 'Logos node API' },
    });
  }

  private install(): void {
    const app = this.app;
    const onAnswered = this.opts.onAnswered;
    if (onAnswered)
      app.addHook('onResponse', (req, reply, done) => {
        const url = req.routeOptions.url;
        const endpoint = url === undefined ? 'unmatched' : url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
        onAnswered(req.method, endpoint, reply.statusCode, reply.elapsedTime / 1000);
        done();
      });
    app.addHook('onRequest', (req, reply, done) => {
      if (!this.admit(req, reply)) return;
      const mutates = (req.routeOptions.config as Partial<RouteConfig> | undefined)?.mutates === true;
      this.authorized(req, reply, mutates).then(
        (ok) => {
          if (ok) done();
        },
        (e: unknown) => this.fail(reply, 'auth', e),
      );
    });
    app.options('*', async (req, reply) => {
      // The preflight of a state-changing route is refused to an origin the route itself refuses.
      const asked = req.headers['access-control-request-method'];
      const method = (typeof asked === 'string' ? asked : '').toUpperCase();
      const target = this.matcher.match(req.url).find((m) => m.route.def.method === method);
      if (target && routeMutates(target.route.def)) {
        try {
          this.guard.checkOrigin(req.headers.origin, req.headers.host);
        } catch (e) {
          reply.removeHeader('access-control-allow-origin');
          this.fail(reply, 'preflight', e);
          return;
        }
      }
      reply
        .code(200)
        .header('access-control-allow-methods', '*')
        // The reference's list; with authentication, browsers may also send their credentials.
        .header(
          'access-control-allow-headers',
          this.auth ? 'content-type,user-agent,authorization' : 'content-type,user-agent',
        )
        .send('');
    });
    app.setNotFoundHandler((_req, reply) => {
      reply.code(404).header('content-length', '0').send('');
    });
    // JSON bodies keep u64 values exact; a syntax error is the reference's plain-text 400.
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, text, done) => {
      try {
        done(null, parseJsonBody(text as string));
      } catch (e) {
        if (optionalBodyOf(req)) done(null, undefined);
        else done(e as Error, undefined);
      }
    });
    // Other content types: a route with an optional body reads JSON from any (or takes none); the other
    // routes refuse them (415), as fastify does for a content type it has no parser for.
    app.addContentTypeParser('*', { parseAs: 'string' }, (req, text, done) => {
      if (!optionalBodyOf(req)) {
        done(Object.assign(new Error('Unsupported Media Type'), { statusCode: 415 }), undefined);
        return;
      }
      try {
        done(null, parseJsonBody(text as string));
      } catch {
        done(null, undefined);
      }
    });
    app.setErrorHandler((err: Error & { statusCode?: number }, _req, reply) => {
      if (err instanceof Rejection || err instanceof ApiError) {
        this.fail(reply, 'request', err, true);
        return;
      }
      // Fastify's own rejections (unsupported content type, oversized body, empty body).
      const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
      if (status === 500) {
        this.logger.error({ err: err.message }, 'API request failed');
        this.send(reply, {
          status: 500,
          body: JSON.stringify({ code: 500, message: 'Internal server error' }),
        });
      } else if (status === 415) {
        this.fail(reply, 'request', unsupportedMediaType(), true);
      } else {
        this.logger.debug({ status, err: err.message }, 'API request refused');
        this.send(reply, { status, body: err.message, contentType: TEXT_TYPE });
      }
    });

    for (const route of this.routes) {
      const config: RouteConfig = {
        mutates: routeMutates(route.def),
        ...(route.def.optionalBody ? { optionalBody: true } : {}),
      };
      app.route({
        method: route.def.method,
        url: route.def.path.replace(/\{(\w+)\}/g, ':$1'),
        config,
        handler: (req, reply) => this.handle(route, req, reply),
      });
    }
    const doc = JSON.stringify(this.openApi());
    app.get('/api-docs/openapi.json', async (_req, reply) => this.send(reply, { body: doc }));
    installExplorer(app);
  }

  /**
   * First for every request, before its body is read: refuses (421) a `Host` the API does not answer
   * for and (403) a browser origin that may not call a state-changing route, then sets the CORS
   * headers (any origin unless `cors_origins` lists some). False when the request was answered.
   */
  private admit(req: FastifyRequest, reply: FastifyReply, mutates?: boolean): boolean {
    try {
      this.guard.checkHost(req.headers.host);
      if (mutates ?? (req.routeOptions.config as Partial<RouteConfig> | undefined)?.mutates)
        this.guard.checkOrigin(req.headers.origin, req.headers.host);
    } catch (e) {
      this.fail(reply, 'guard', e);
      return false;
    }
    const origins = this.opts.backend.cors_origins;
    const origin = req.headers.origin;
    if (origins.length === 0) reply.header('access-control-allow-origin', '*');
    else if (origin !== undefined && origins.includes(origin))
      reply.header('access-control-allow-origin', origin);
    reply.header('vary', 'origin, access-control-request-method, access-control-request-headers');
    return true;
  }

  /**
   * Whether the request may go on as far as authentication goes: no authentication configured, a
   * request that needs none (a read in `writes` mode, a CORS preflight, the API's documentation, the
   * explorer's files), or valid credentials; otherwise it is answered 401 with the challenge, and false.
   */
  private async authorized(req: FastifyRequest, reply: FastifyReply, mutates: boolean): Promise<boolean> {
    const auth = this.auth;
    if (auth === undefined || req.method === 'OPTIONS' || !auth.required(mutates)) return true;
    const path = (req.raw.url ?? '').split('?')[0]!;
    if (
      path === '/api-docs/openapi.json' ||
      path === '/swagger-ui' ||
      path.startsWith('/swagger-ui/') ||
      isExplorerPath(path)
    )
      return true;
    if (await auth.check(req.headers.authorization)) return true;
    reply.header('www-authenticate', auth.challenge());
    this.fail(
      reply,
      'auth',
      new ApiError(401, 'Unauthorized: this request needs credentials (see api.backend.auth)'),
      true,
    );
    return false;
  }

  /**
   * A request the router could not route (a parameter that does not percent-decode, or is too
   * long): the route its raw path matches runs with the parameter decoded as the reference decodes
   * it, so the parameter's own parser answers; no route matches: an empty 404.
   */
  private unroutable(req: FastifyRequest, reply: FastifyReply): void {
    const m = this.matcher.match(req.raw.url ?? '').find((x) => x.route.def.method === req.raw.method);
    const mutates = m ? routeMutates(m.route.def) : false;
    if (!this.admit(req, reply, mutates)) return;
    this.authorized(req, reply, mutates).then(
      (ok) => {
        if (ok) this.routeUnroutable(req, reply, m);
      },
      (e: unknown) => this.fail(reply, 'auth', e),
    );
  }

  private routeUnroutable(
    req: FastifyRequest,
    reply: FastifyReply,
    m: ReturnType<RouteMatcher['match']>[number] | undefined,
  ): void {
    if (!m) {
      reply.code(404).header('content-length', '0').send('');
      return;
    }
    const params: Record<string, string> = {};
    for (const [name, raw] of Object.entries(m.rawParams)) {
      const decoded = lenientPercentDecode(raw);
      if (decoded === undefined) {
        this.fail(
          reply,
          m.route.operationId,
          new Rejection(400, `Invalid URL: Invalid UTF-8 in \`${name}\``),
        );
        return;
      }
      params[name] = decoded;
    }
    void this.handle(m.route, req, reply, params);
  }

  /**
   * Runs a route: decodes the request through its definition, then the handler. The common case (a
   * permit free, not gated, a synchronous handler) answers at once; otherwise the API timeout covers
   * the wait for a permit, the wait for Online and the handler.
   */
  private handle(
    route: ServerRoute,
    req: FastifyRequest,
    reply: FastifyReply,
    rawParams?: Readonly<Record<string, string>>,
  ): Promise<void> | undefined {
    const { def } = route;
    if (
      def.loopbackOnly === true &&
      !isLoopbackHost((req.socket.remoteAddress ?? '').replace(/^::ffff:/, ''))
    ) {
      this.fail(
        reply,
        route.operationId,
        new ApiError(403, 'this endpoint answers only on the loopback interface'),
      );
      return undefined;
    }
    let args: RouteArgs;
    try {
      const raw: RawRequest = {
        params: rawParams ?? (req.params as Record<string, string>),
        query: (req.query ?? {}) as RawRequest['query'],
        contentType: req.headers['content-type'],
        body: req.body,
      };
      args = decodeRequest(def, raw);
    } catch (e) {
      this.fail(reply, route.operationId, e, true);
      return undefined;
    }
    // The request's deadline (the API timeout, its client leaving) is the deadline of the proofs its
    // handler asks for.
    const deadline = new AbortController();
    const permit = def.gatedWhileBootstrapping ? undefined : this.slots.tryAcquire();
    if (permit) {
      let res: HandlerResult;
      try {
        res = withProofDeadline(deadline.signal, () => route.handle(this.ctx, args));
      } catch (e) {
        permit();
        this.fail(reply, route.operationId, e);
        return undefined;
      }
      if (!(res instanceof Promise)) {
        // As the reference's concurrency limit, a permit is held until the response starts: an open
        // stream does not hold one.
        permit();
        if ('ndjson' in res) return this.stream(req.raw, reply, res);
        this.send(reply, res);
        return undefined;
      }
      return this.finish(route, args, req, reply, res, permit, deadline);
    }
    return this.finish(route, args, req, reply, undefined, undefined, deadline);
  }

  /** The asynchronous path of `handle`, within the API timeout. */
  private async finish(
    route: ServerRoute,
    args: RouteArgs,
    req: FastifyRequest,
    reply: FastifyReply,
    running: Promise<ApiReply | ApiStream> | undefined,
    permit: (() => void) | undefined,
    deadline: AbortController,
  ): Promise<void> {
    const timer = setTimeout(() => deadline.abort(new Timeout()), this.opts.backend.timeout * 1000);
    // A client that leaves while its request waits gives up its place (and never starts a stream).
    const socket = req.raw.socket;
    const gone = () => deadline.abort(new ClientGone());
    socket.once('close', gone);
    let release = permit;
    let res = running;
    try {
      if (!res) {
        release = await this.slots.acquire(deadline.signal);
        if (route.def.gatedWhileBootstrapping) await this.untilOnline(deadline.signal);
        res = Promise.resolve().then(() =>
          withProofDeadline(deadline.signal, () => route.handle(this.ctx, args)),
        );
      }
      const out = await untilAborted(res, deadline.signal);
      clearTimeout(timer);
      socket.off('close', gone);
      release?.();
      release = undefined;
      if ('ndjson' in out) await this.stream(req.raw, reply, out);
      else this.send(reply, out);
    } catch (e) {
      if (!(e instanceof ClientGone)) this.fail(reply, route.operationId, e);
    } finally {
      clearTimeout(timer);
      socket.off('close', gone);
      // A handler still running after its 408 keeps its permit until it ends: the limit bounds the
      // work in progress, not just the requests being answered.
      if (release) {
        if (res) res.then(release, release);
        else release();
      }
    }
  }

  /** Writes an NDJSON stream on the raw response, line by line, waiting for the socket to drain. */
  private async stream(req: IncomingMessage, reply: FastifyReply, s: ApiStream): Promise<void> {
    const res = reply.raw;
    reply.hijack();
    const headers = {
      ...reply.getHeaders(),
      'content-type': 'application/x-ndjson',
      'x-accel-buffering': 'no',
    };
    res.writeHead(200, headers as Record<string, string>);
    // The status line and headers go out now, not with the first line: a live stream may have no
    // line for a long time, and its client (and any proxy or health check) waits for the headers.
    res.flushHeaders();
    // HEAD: the headers only (writes of a HEAD body are dropped without backpressure).
    if (req.method === 'HEAD' || req.socket.destroyed || res.destroyed) {
      res.end();
      return;
    }
    const abort = new AbortController();
    const close = () => abort.abort();
    req.socket.once('close', close);
    res.once('close', close);
    // A client that takes no data for a whole API timeout is gone: its connection is destroyed, so a
    // stalled reader holds neither a subscription nor socket buffers for long.
    const stallMs = this.opts.backend.timeout * 1000;
    const write = async (line: string): Promise<void> => {
      if (abort.signal.aborted) throw new Error('client gone');
      if (!res.write(`${line}\n`)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(stalled);
            res.off('drain', done);
            abort.signal.removeEventListener('abort', done);
            resolve();
          };
          const stalled = setTimeout(() => {
            res.destroy();
            close();
          }, stallMs);
          res.once('drain', done);
          abort.signal.addEventListener('abort', done, { once: true });
        });
      }
    };
    try {
      await s.run(write, abort.signal);
    } catch {
      // The client left, or the stream failed after it started: it just ends (the reference reports nothing).
    } finally {
      req.socket.off('close', close);
      if (!res.writableEnded) res.end();
      if (!res.writableFinished && !res.destroyed) {
        // Ended, but the client does not read what is left: give it the same time, then let go.
        const linger = setTimeout(() => res.destroy(), stallMs);
        res.once('close', () => clearTimeout(linger));
      }
    }
  }

  /**
   * Answers a failed request: 408, `{code, message}` JSON, or a plain-text rejection. `malformed`: the
   * failure came from decoding the request (its path, query or body), before any handler ran.
   */
  private fail(reply: FastifyReply, operationId: string, e: unknown, malformed = false): void {
    this.logFailure(operationId, e, malformed);
    if (e instanceof Timeout) reply.code(408).header('content-length', '0').send('');
    else if (e instanceof ApiError) {
      this.send(reply, { status: e.status, body: JSON.stringify({ code: e.status, message: e.message }) });
    } else if (e instanceof Rejection)
      this.send(reply, { status: e.status, body: e.message, contentType: TEXT_TYPE });
    else {
      this.send(reply, {
        status: 500,
        body: JSON.stringify({ code: 500, message: (e as Error).message || 'Internal server error' }),
      });
    }
  }

  /**
   * Logs a failed request at the level of whose fault it is: a request the API refuses (malformed, or
   * from a Host or Origin it does not serve) or one that outlives the timeout at debug; a failure a
   * service reports as a known error (a `LogosError`, answered with its status) at info with its code;
   * anything else is the node's own fault, at error.
   */
  private logFailure(route: string, e: unknown, malformed: boolean): void {
    if (e instanceof Timeout) this.logger.debug({ route }, 'API request timed out');
    else if (e instanceof Rejection || (malformed && e instanceof LogosError))
      this.logger.debug({ route, code: e.code, err: e.message }, 'API request refused');
    else if (e instanceof LogosError)
      this.logger.info({ route, code: e.code, err: e.message }, 'API request failed with a known error');
    else this.logger.error({ route, err: e instanceof Error ? e.message : String(e) }, 'API handler failed');
  }

  /** Resolves once consensus is Online (at once if it is); rejects when `signal` aborts. */
  private untilOnline(signal: AbortSignal): Promise<void> {
    const chain = this.ctx.chain;
    if (chain.consensusState === 'Online') return Promise.resolve();
    // One listener on the chain for all the waiting requests.
    this.online ??= new Promise<void>((resolve) => {
      chain.once('online', () => {
        this.online = undefined;
        resolve();
      });
    });
    return untilAborted(this.online, signal);
  }

  private send(reply: FastifyReply, r: ApiReply): void {
    // A Buffer body keeps the content type exactly as set (fastify would add a charset to strings).
    reply
      .code(r.status ?? 200)
      .header('content-type', r.contentType ?? JSON_TYPE)
      .send(typeof r.body === 'string' ? Buffer.from(r.body) : r.body);
  }

  /**
   * Keeps a request that arrives before `serve` until the node serves; one still waiting after the API
   * timeout gets the empty 408 of any request that outlives it.
   */
  private hold(req: IncomingMessage, res: ServerResponse): void {
    const entry: [IncomingMessage, ServerResponse] = [req, res];
    this.held?.push(entry);
    const timer = setTimeout(() => {
      const i = this.held?.indexOf(entry) ?? -1;
      if (i < 0) return;
      this.held?.splice(i, 1);
      res.writeHead(408, { 'content-length': '0' }).end();
    }, this.opts.backend.timeout * 1000);
    timer.unref();
    res.once('close', () => clearTimeout(timer));
    // Served (or ended) before the timeout: the timer has nothing left to do.
    res.once('finish', () => clearTimeout(timer));
  }

  /** Takes the listen address (and fails if it is taken) without serving yet. */
  private async bind(): Promise<void> {
    const [host, port] = splitHostPort(this.opts.backend.listen_address);
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ host, port }, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const a = this.server.address();
    if (typeof a === 'object' && a !== null) {
      this.address = `${a.address}:${a.port}`;
      this.guard.listening(a.address, a.port);
    } else {
      this.address = this.opts.backend.listen_address;
      this.guard.listening(host, port);
    }
  }

  /** Serves the routes on the node's services; the requests held since binding are answered now. */
  async serve(services: ApiContext): Promise<string> {
    const address = this.address;
    if (address === undefined || this.services !== undefined)
      throw new ApiError(500, 'the API serves once, after binding');
    this.services = services;
    await this.installSwaggerUi();
    await this.app.ready();
    const held = this.held ?? [];
    this.held = undefined;
    for (const [req, res] of held) {
      if (!res.writableEnded) this.server.emit('request', req, res);
    }
    const auth = this.opts.backend.auth;
    if (auth)
      this.logger.info(
        {
          address,
          auth: auth.mode,
          bearer_tokens: auth.bearer_token_hashes.length,
          basic_users: auth.basic_users.length,
        },
        'HTTP API listening, with authentication',
      );
    else if (!isLoopbackHost(splitHostPort(address)[0]))
      this.logger.warn(
        { address },
        'HTTP API listening WITHOUT authentication on an address other machines can reach ' +
          '(--insecure-api-binding): anyone who reaches it can read the wallet and spend its funds',
      );
    else this.logger.info({ address }, 'HTTP API listening');
    return address;
  }

  /** Stops serving; open connections and streams are closed at once. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    for (const [, res] of this.held?.splice(0) ?? []) res.destroy();
    await this.app.close();
    if (this.server.listening) {
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      this.server.closeAllConnections();
      await closed;
    }
  }
}

/** `p`, or the signal's reason once it aborts first. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
