/**
 * The package tooling's failures (catalogs, fetching, `.lgx` packages, manifests, the keyring, catalog
 * resolution and downloads; operator.md §1.3, §1.7), as `LogosError`s with codes `PACKAGE_` + what went
 * wrong. The message is what the package commands and modules report, and says what is wrong.
 */
import { LogosError } from '@logos-ts/shared/errors';

export type PackageErrorCode =
  /** A catalog descriptor or index that does not parse or breaks the catalog rules. */
  | 'PACKAGE_CATALOG'
  /** A URL that cannot be read (scheme, size limit, network or file failure). */
  | 'PACKAGE_FETCH'
  /** A bad `.lgx` package: archive, layout, paths or root hash. */
  | 'PACKAGE_ARCHIVE'
  /** A bad `manifest.json`; the message names the field. */
  | 'PACKAGE_MANIFEST'
  /** A bad keyring entry, key name or DID. */
  | 'PACKAGE_KEYRING'
  /** No release fits a dependency, or a download does not match its catalog entry. */
  | 'PACKAGE_RESOLUTION'
  /** A package file that cannot be opened, is not a file, or is over the package limit. */
  | 'PACKAGE_FILE';

export class PackageError extends LogosError {
  declare readonly code: PackageErrorCode;

  constructor(code: PackageErrorCode, message: string) {
    super(code, message);
  }
}
LogosError.register(PackageError);

/** A bad catalog document. */
export class CatalogError extends PackageError {
  constructor(message: string) {
    super('PACKAGE_CATALOG', message);
  }
}
LogosError.register(CatalogError);

/** A URL that cannot be read. */
export class FetchError extends PackageError {
  constructor(message: string) {
    super('PACKAGE_FETCH', message);
  }
}
LogosError.register(FetchError);

/** A bad package: the message says what is wrong. */
export class LgxError extends PackageError {
  constructor(message: string) {
    super('PACKAGE_ARCHIVE', message);
  }
}
LogosError.register(LgxError);

/** A bad manifest: the message names the field. */
export class ManifestError extends PackageError {
  constructor(message: string) {
    super('PACKAGE_MANIFEST', message);
  }
}
LogosError.register(ManifestError);

/** A bad keyring entry, key name or DID. */
export class KeyringError extends PackageError {
  constructor(message: string) {
    super('PACKAGE_KEYRING', message);
  }
}
LogosError.register(KeyringError);

/** A dependency no release fits, or a download that does not match its catalog entry. */
export class RepoError extends PackageError {
  constructor(message: string) {
    super('PACKAGE_RESOLUTION', message);
  }
}
LogosError.register(RepoError);
