/**
 * The daemon's log file with size-based rotation (operator.md §1.2, `logging:` of `daemon/config.yaml`):
 * lines go to `logs/<file>` (default `daemon.log`); past `max_size_mb` (default 10) the file is renamed
 * `daemon_<timestamp>.log` and a new one begun; only the newest `max_files` (default 5) rotated files are
 * kept. `enabled: false` turns the file off; `console: true` copies lines to stderr.
 */
import { closeSync, fstatSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { Writable } from 'node:stream';
import { DaemonConfigError } from './errors.ts';

export interface LoggingConfig {
  readonly enabled: boolean;
  readonly file: string;
  readonly maxSizeMb: number;
  readonly maxFiles: number;
  readonly console: boolean;
}

/** Reads `logging:` of the daemon configuration; bad values are errors naming the field. */
export function loggingConfig(config: Record<string, unknown>): LoggingConfig {
  const l = config.logging ?? {};
  if (typeof l !== 'object' || l === null || Array.isArray(l))
    throw new DaemonConfigError('logging: not a mapping');
  const o = l as Record<string, unknown>;
  const bool = (k: string, d: boolean): boolean => {
    const v = o[k] ?? d;
    if (typeof v !== 'boolean') throw new DaemonConfigError(`logging.${k}: expected true or false`);
    return v;
  };
  const pos = (k: string, d: number): number => {
    const v = o[k] ?? d;
    if (typeof v !== 'number' || !(v > 0))
      throw new DaemonConfigError(`logging.${k}: expected a positive number`);
    return v;
  };
  const file = o.file ?? 'daemon.log';
  if (typeof file !== 'string' || file === '' || basename(file) !== file)
    throw new DaemonConfigError('logging.file: expected a file name');
  return {
    enabled: bool('enabled', true),
    file,
    maxSizeMb: pos('max_size_mb', 10),
    maxFiles: Math.floor(pos('max_files', 5)),
    console: bool('console', false),
  };
}

/** A synchronous, rotating file sink for pino. */
export class RotatingLog extends Writable {
  /** -1 while closed after a failed reopen; the next write tries again. */
  private fd: number;
  private size: number;
  private failing = false;
  private readonly path: string;
  private readonly stem: string;
  private readonly ext: string;

  constructor(
    private readonly dir: string,
    private readonly cfg: LoggingConfig,
  ) {
    super({ decodeStrings: true });
    this.path = join(dir, cfg.file);
    this.ext = extname(cfg.file);
    this.stem = basename(cfg.file, this.ext);
    this.fd = openSync(this.path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    try {
      this.writeChunk(chunk);
      this.failing = false;
    } catch (e) {
      // a full disk or an I/O error loses this line but never stops the daemon; said once per spell
      if (!this.failing)
        process.stderr.write(`cannot write the log file ${this.path}: ${(e as Error).message}\n`);
      this.failing = true;
    }
    if (this.cfg.console) process.stderr.write(chunk);
    cb();
  }

  private writeChunk(chunk: Buffer): void {
    if (this.fd < 0) this.reopen();
    if (this.size > 0 && this.size + chunk.length > this.cfg.maxSizeMb * 1024 * 1024) this.rotate();
    writeSync(this.fd, chunk);
    this.size += chunk.length;
  }

  private reopen(): void {
    this.fd = openSync(this.path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  /** Renames the full file aside and begins a new one; whatever fails, the log is open again after. */
  private rotate(): void {
    closeSync(this.fd);
    this.fd = -1;
    try {
      const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
      let target = join(this.dir, `${this.stem}_${stamp}${this.ext}`);
      for (let i = 1; this.exists(target); i++)
        target = join(this.dir, `${this.stem}_${stamp}-${i}${this.ext}`);
      renameSync(this.path, target);
      const rotated = readdirSync(this.dir)
        .filter((n) => n.startsWith(`${this.stem}_`) && n.endsWith(this.ext))
        .sort();
      for (const old of rotated.slice(0, Math.max(0, rotated.length - this.cfg.maxFiles)))
        rmSync(join(this.dir, old), { force: true });
    } finally {
      this.reopen();
    }
  }

  private exists(p: string): boolean {
    return readdirSync(this.dir).includes(basename(p));
  }

  override _final(cb: (e?: Error | null) => void): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    cb();
  }
}
