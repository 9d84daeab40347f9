/**
 * The storage's sections of `user_config.yaml` (`state`, `storage`): their types, the reference
 * defaults and their parser.
 */
import { bool, ConfigError, mapping, only, str } from '@logos-ts/shared/config-fields';

export interface StateSection {
  readonly base_folder: string;
}

export interface StorageSection {
  readonly backend: { readonly folder_name: string; readonly read_only: boolean };
}

export const DEFAULT_STATE: StateSection = { base_folder: './state' };
export const DEFAULT_STORAGE: StorageSection = { backend: { folder_name: './db', read_only: false } };

/**
 * `storage.backend.read_only`: only false. The node keeps its block tree in memory, read once from
 * storage at start, and stores every block it imports or produces: a read-only node would neither follow
 * the writer's new blocks nor run, so the setting is refused rather than accepted and ignored.
 */
function notReadOnly(v: unknown): false {
  if (bool(v, false, 'storage.backend.read_only'))
    throw new ConfigError(
      'storage.backend.read_only: true is not supported: this node has no read-only mode (it stores every ' +
        "block it imports or produces, and a read-only copy would not follow another node's new blocks); " +
        'set it to false or remove it',
    );
  return false;
}

export function parseStateSection(raw: unknown): StateSection {
  const state = mapping(raw, 'state');
  only(state, ['base_folder'], 'state');
  return { base_folder: str(state.base_folder, DEFAULT_STATE.base_folder, 'state.base_folder') };
}

export function parseStorageSection(raw: unknown): StorageSection {
  const storage = mapping(raw, 'storage');
  only(storage, ['backend'], 'storage');
  const sb = mapping(storage.backend, 'storage.backend');
  only(sb, ['folder_name', 'read_only', 'column_family'], 'storage.backend');
  return {
    backend: {
      folder_name: str(sb.folder_name, DEFAULT_STORAGE.backend.folder_name, 'storage.backend.folder_name'),
      read_only: notReadOnly(sb.read_only),
    },
  };
}
