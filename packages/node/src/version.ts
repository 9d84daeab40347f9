/** The reference node version whose HTTP API and chain rules this node implements. */
export const API_VERSION = '0.3.1';

/** Name of this implementation, reported next to the version. */
export const IMPLEMENTATION = 'logos-node-ts';
