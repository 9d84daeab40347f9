/**
 * `daemon/config.yaml` (operator.md §1.2, §1.3; `config_command.cpp` and `daemon_state.cpp` of
 * logos-logoscore-cli @1a4f56fe): `logosctl daemon config set FILE|@FILE|-` validates a YAML (or JSON)
 * mapping before anything is written, refuses unknown keys, stamps `version` and replaces the file
 * atomically (mode 600); `daemon config show` prints it. The keys this daemon reads: `logging`,
 * `modules_dirs`, `signature_policy` (`none`, `warn`, `require`: the package manager's), and two of its
 * own, `restart_policy` (`max_restarts`, `backoff_ms`) and `catalogs` (more catalog URLs for the package
 * downloader, beside those added with `catalog add`). The reference's other keys are accepted and kept.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, int, mapping, oneOf, only, strings } from '@logos-ts/shared/config-fields';
import { LogosError } from '@logos-ts/shared/errors';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { loggingConfig } from './log-file.ts';

/** The schema version stamped into a written configuration. */
export const DAEMON_CONFIG_VERSION = 1;

export const DAEMON_CONFIG_KEYS = [
  'access_group',
  'access_policy',
  'catalogs',
  'dirs',
  'insecure_tcp',
  'logging',
  'modules',
  'modules_dirs',
  'persistence_path',
  'restart_policy',
  'signature_policy',
  'ssl',
  'version',
] as const;

/** A configuration the daemon would refuse; the CLI reports `INVALID_CONFIG`, exit 1. */
export class InvalidConfig extends ConfigError {}
LogosError.register(InvalidConfig);

/** A configuration document (`FILE`, `@FILE`, `-`) that cannot be read; the CLI reports `IO_ERROR`. */
export class ConfigDocumentUnreadable extends LogosError {
  declare readonly code: 'DAEMON_CONFIG_UNREADABLE';

  constructor(message: string) {
    super('DAEMON_CONFIG_UNREADABLE', message);
  }
}
LogosError.register(ConfigDocumentUnreadable);

export interface RestartPolicy {
  readonly maxRestarts: number;
  readonly backoffMs: number;
}

/** The longest delay a Node timer honours (a longer one fires at once). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** `restart_policy:`: how often and how soon a crashed module is restarted (defaults 3, 1000 ms). */
export function restartPolicy(config: Record<string, unknown>): RestartPolicy {
  const o = mapping(config.restart_policy, 'restart_policy', { message: 'restart_policy: not a mapping' });
  // A key given as null reads as absent (its default).
  const whole = (k: string, d: number, max: number): number =>
    int(o[k] ?? undefined, d, `restart_policy.${k}`, 0, {
      max,
      message: `restart_policy.${k}: expected a whole number from 0 to ${max}`,
    });
  return {
    maxRestarts: whole('max_restarts', 3, Number.MAX_SAFE_INTEGER),
    backoffMs: whole('backoff_ms', 1000, MAX_TIMER_MS),
  };
}

/** `modules_dirs:`: more folders of installed modules (relative ones against the daemon's cwd). */
export function configuredModulesDirs(config: Record<string, unknown>, cwd: string): string[] {
  const dirs = strings(config.modules_dirs ?? undefined, [], 'modules_dirs', {
    nonEmpty: true,
    message: 'modules_dirs: expected a list of folders',
  });
  return dirs.map((d) => resolve(cwd, d));
}

/** Parses and checks a configuration document; returns the mapping to write, `version` stamped. */
export function checkDaemonConfig(text: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new InvalidConfig(`Not valid YAML: ${(e as Error).message}`);
  }
  const known: readonly string[] = DAEMON_CONFIG_KEYS;
  let o: Record<string, unknown>;
  try {
    o = mapping(doc, '', {
      required: true,
      message: 'The config document must be a mapping at the top level.',
    });
    only(o, known, '', {
      message: (unknown) => `Unknown key(s): ${unknown.join(', ')}. Known keys are: ${known.join(', ')}.`,
    });
    oneOf(o.signature_policy, 'warn', 'signature_policy', ['none', 'warn', 'require'], {
      message: 'signature_policy: expected none, warn or require',
    });
    loggingConfig(o);
    restartPolicy(o);
    configuredModulesDirs(o, '/');
  } catch (e) {
    throw new InvalidConfig((e as Error).message);
  }
  return { ...o, version: DAEMON_CONFIG_VERSION };
}

/** The text of `FILE`, `@FILE` (relative to `cwd`) or `-` (standard input). */
export function readDocument(spec: string, cwd: string): string {
  const path = spec === '-' ? 0 : resolve(cwd, spec.startsWith('@') ? spec.slice(1) : spec);
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigDocumentUnreadable(
      `Could not read ${spec === '-' ? 'standard input' : path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
}

export const dumpConfig = (config: Record<string, unknown>): string => stringifyYaml(config);
