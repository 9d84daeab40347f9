/**
 * How our code starts more of itself (child processes, worker threads) the way it runs now: from the
 * TypeScript sources in development (through tsx, with package imports resolved to the sources by the
 * `logos-source` export condition), or as the compiled JavaScript of a build (plain `node`, no loader,
 * no flags). Every package is in the same mode: a build compiles all of them.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** Whether this process runs our TypeScript sources (true) or a build's JavaScript (false). */
export const FROM_SOURCE = import.meta.url.endsWith('.ts');

/** The URL of module `name` (no extension) beside the module at `base` (an `import.meta.url`). */
export function siblingModule(base: string, name: string): URL {
  return new URL(`${name}${FROM_SOURCE ? '.ts' : '.js'}`, base);
}

/**
 * The node flags a child process needs to run our code as this process does: from source, tsx and the
 * source condition; always the polyfills first (entry points import them too; a helper script may not).
 */
export function childExecArgv(): string[] {
  const polyfills = ['--import', new URL('polyfills.js', import.meta.url).href];
  return FROM_SOURCE
    ? ['--import', import.meta.resolve('tsx'), '--conditions=logos-source', ...polyfills]
    : polyfills;
}

/**
 * A worker thread running module `name` beside `base`. From source, the thread first registers tsx
 * (worker threads do not inherit the parent's loader hooks) and then imports the module; a failure to
 * load is the worker's unhandled rejection, so its `error` event.
 */
export function startWorker(base: string, name: string, options: WorkerOptions = {}): Worker {
  const url = siblingModule(base, name);
  if (!FROM_SOURCE) return new Worker(url, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot =
    `import(${JSON.stringify(tsx)}).then((m) => { m.register(); ` +
    `return import(${JSON.stringify(url.href)}); });`;
  return new Worker(boot, { ...options, eval: true });
}
