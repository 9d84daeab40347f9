/**
 * Path safety of `.lgx` archive paths (operator.md §1.7; logos-package `docs/spec.md` "Path Safety Rules",
 * `PathNormalizer::validateArchivePath`): not empty, not absolute, no backslash or NUL, no `..` segment,
 * NFC-normalized.
 */

/** Why an archive path is unsafe, or undefined when it is fine. */
export function unsafePath(path: string): string | undefined {
  if (path === '') return 'empty path';
  if (path.startsWith('/')) return 'absolute path';
  if (path.includes('\\')) return 'backslash in path';
  if (path.includes('\0')) return 'NUL in path';
  if (path.split('/').some((s) => s === '..')) return "'..' segment";
  if (path.normalize('NFC') !== path) return 'not NFC-normalized';
  return undefined;
}
