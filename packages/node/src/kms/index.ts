/** The key store: the only way into `kms/` from outside. */
export { DEFAULT_KMS, type KeyKind, type KmsSection, keyId, parseKmsSection } from './config.ts';
export { KmsError, type KmsErrorCode } from './errors.ts';
export { type IKms, MAX_ZK_SIGNING_KEYS } from './interface.ts';
export { type KeyChanges, KeyStore, type KeyStoreDeps, zkKeyId } from './key-store.ts';
