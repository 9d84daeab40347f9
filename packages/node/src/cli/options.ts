/** The option parsers the node's commands share: whole numbers, log levels and formats, repeatable values. */
import { InvalidArgumentError } from 'commander';
import type { LogFormat } from '../node/logger.ts';

const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty'];
const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;

export function intOption(v: string): number {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError('expected a whole number');
  return Number(v);
}

/** A port number (0-65535). */
export function portOption(v: string): number {
  const n = intOption(v);
  if (n > 65535) throw new InvalidArgumentError('expected a port number (0 to 65535)');
  return n;
}

export function logLevelOption(v: string): string {
  const l = v.toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(l))
    throw new InvalidArgumentError(`expected one of ${LOG_LEVELS.join(', ')}`);
  return l;
}

export function logFormatOption(v: string): LogFormat {
  if (!(LOG_FORMATS as readonly string[]).includes(v))
    throw new InvalidArgumentError(`expected ${LOG_FORMATS.join(' or ')}`);
  return v as LogFormat;
}

/** A repeatable option: each use adds its value. */
export function repeatable(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}
