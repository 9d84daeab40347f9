/**
 * Module resolution hooks of the module host (operator.md §1.7: installed packages carry an entry, not the
 * code; the modules ship with the tool). Registered with `node:module` `register` before a module file is
 * imported, with `data: {root, name}` (the tool's folder and package name):
 * - `<name>/<path>` (the tool's own package name) resolves to `<root>/<path>`, so a package's `module.mjs`
 *   can re-export a module of this installation (`export { default } from 'logos-node-ts/src/…/index.ts'`);
 * - any other bare specifier not found from the importing file is retried from the tool's root, so an
 *   installed entry can use the tool's dependencies.
 * Plain JavaScript: hooks run on the loader thread, before TypeScript support applies to them.
 */
import { pathToFileURL } from 'node:url';

let root = '';
let toolName = '';

export function initialize(data) {
  root = data.root.endsWith('/') ? data.root : `${data.root}/`;
  toolName = data.name;
}

const isBare = (s) => !/^(\.{0,2}\/|[a-zA-Z][a-zA-Z0-9+.-]*:)/.test(s);

export async function resolve(specifier, context, nextResolve) {
  if (toolName !== '' && (specifier === toolName || specifier.startsWith(`${toolName}/`))) {
    const rest = specifier === toolName ? '' : specifier.slice(toolName.length + 1);
    if (rest !== '' && !rest.split('/').includes('..'))
      return nextResolve(pathToFileURL(`${root}${rest}`).href, context);
  }
  try {
    return await nextResolve(specifier, context);
  } catch (e) {
    if (!isBare(specifier) || root === '' || e?.code !== 'ERR_MODULE_NOT_FOUND') throw e;
    return nextResolve(specifier, { ...context, parentURL: pathToFileURL(`${root}package.json`).href });
  }
}
