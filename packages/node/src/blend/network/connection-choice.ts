/**
 * Which connection two core nodes keep when they hold two with each other (F
 * `blend/network/src/core/with_core/behaviour/mod.rs` `handle_negotiated_connection_for_existing_peer`):
 * a second connection in the same direction as the kept one is dropped; one in the other direction
 * replaces the kept one or is dropped by comparing the two peer ids as base58 strings, so that both
 * ends keep the same connection (the one dialled by the peer with the greater id).
 */

/** The remote peer's role on a connection: `dialer` on an inbound connection, `listener` on an outbound one. */
export type RemoteRole = 'dialer' | 'listener';

export type ConnectionChoice = 'duplicate' | 'replace_existing' | 'keep_existing';

export function chooseConnection(
  existingRole: RemoteRole,
  newRole: RemoteRole,
  localPeer: string,
  remotePeer: string,
): ConnectionChoice {
  if (existingRole === newRole) return 'duplicate';
  // An inbound connection is closed when our id is greater, an outbound one when it is not.
  const closeExisting = existingRole === 'dialer' ? localPeer > remotePeer : localPeer <= remotePeer;
  return closeExisting ? 'replace_existing' : 'keep_existing';
}
