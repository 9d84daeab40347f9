/**
 * The node's logs: one root pino logger and one child per module, from a closed set of module names
 * (the targets `PUT /admin/tracing/filter` may name, with `*` for all). Lines are JSON (one object a
 * line), or, for a person at a terminal, readable text: time, level, module, message and the fields.
 */
import { type DestinationStream, type Logger, pino } from 'pino';

/** The modules that log, each with its own level. */
export const LOG_MODULES = [
  'node',
  'storage',
  'network',
  'proofs',
  'chain',
  'sync',
  'mempool',
  'wallet',
  'leader',
  'ops',
  'pow',
  'blend',
  'api',
] as const;
export type LogModule = (typeof LOG_MODULES)[number];

export function isLogModule(s: string): s is LogModule {
  return (LOG_MODULES as readonly string[]).includes(s);
}

export type LogFormat = 'json' | 'pretty';

export interface RootLoggerOptions {
  /** pino level name (`trace` … `error`, `silent`). */
  readonly level: string;
  readonly format: LogFormat;
  /** Where lines go; stdout by default. */
  readonly out?: NodeJS.WritableStream & { isTTY?: boolean };
}

/** Pretty on a terminal, JSON otherwise (a pipe, a file, a log collector). */
export function defaultLogFormat(out: { isTTY?: boolean } = process.stdout): LogFormat {
  return out.isTTY ? 'pretty' : 'json';
}

export function createRootLogger(opts: RootLoggerOptions): Logger {
  const out = opts.out ?? process.stdout;
  const base = { svc: 'logos-node' };
  if (opts.format === 'json') {
    return pino({ level: opts.level, base }, out === process.stdout ? undefined : (out as DestinationStream));
  }
  const color = out.isTTY === true && process.env.NO_COLOR === undefined;
  const dest: DestinationStream = { write: (line: string) => void out.write(prettyLine(line, color)) };
  return pino({ level: opts.level, base }, dest);
}

const LEVEL_NAMES: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
const LEVEL_COLORS: Readonly<Record<number, string>> = {
  10: '90',
  20: '36',
  30: '32',
  40: '33',
  50: '31',
  60: '35',
};
/** Fields every line has, shown in the line's head or not at all. */
const HEAD = new Set(['level', 'time', 'svc', 'module', 'msg', 'pid', 'hostname']);

function fieldValue(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}

/** One JSON log line as `12:00:01.234 INFO  chain   message  key=value ...`. */
export function prettyLine(json: string, color = false): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const t = typeof o.time === 'number' ? new Date(o.time) : new Date();
  const time = t.toISOString().slice(11, 23);
  const lv = typeof o.level === 'number' ? o.level : 30;
  const level = (LEVEL_NAMES[lv] ?? String(lv)).padEnd(5);
  const module = String(o.module ?? 'node').padEnd(7);
  const fields = Object.entries(o)
    .filter(([k]) => !HEAD.has(k))
    .map(([k, v]) => `${k}=${fieldValue(v)}`)
    .join(' ');
  const paint = (code: string, s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const msg = String(o.msg ?? '');
  return `${paint('90', time)} ${paint(LEVEL_COLORS[lv] ?? '0', level)} ${paint('34', module)} ${msg}${
    fields ? `  ${paint('90', fields)}` : ''
  }\n`;
}

/** The per-module loggers of one node, whose levels `setFilter` changes. */
export class ModuleLoggers {
  private readonly children = new Map<LogModule, Logger>();
  private readonly startLevel: string;

  constructor(readonly root: Logger) {
    this.startLevel = root.level;
  }

  get(module: LogModule): Logger {
    let l = this.children.get(module);
    if (!l) {
      l = this.root.child({ module });
      this.children.set(module, l);
    }
    return l;
  }

  /**
   * Replaces the log filter: each module's level is its entry, else `*`, else the level the node
   * started with. Returns the targets that name no module (the node logs them; they change nothing).
   */
  setFilter(filters: Readonly<Record<string, string>>): string[] {
    const base = filters['*'] ?? this.startLevel;
    this.root.level = base;
    for (const [name, child] of this.children) child.level = filters[name] ?? base;
    return Object.keys(filters).filter((t) => t !== '*' && !isLogModule(t));
  }

  /** Replaces the log filter (`setFilter`) and says, in the node's log, which targets name no module. */
  replaceFilter(filters: Readonly<Record<string, string>>): void {
    const unknown = this.setFilter(filters);
    const log = this.get('node');
    if (unknown.length > 0)
      log.warn(
        { unknown, modules: LOG_MODULES },
        'log filter: these targets name no module and change nothing',
      );
    log.info({ filters }, 'log filter replaced');
  }
}
