/** Closing a Blend connection: gracefully within 2 s, else aborted with the reason. */
import type { Connection } from '@libp2p/interface';

export function closeConnection(conn: Connection, reason: string): void {
  if (conn.status !== 'open') return;
  conn.close({ signal: AbortSignal.timeout(2_000) }).catch(() => conn.abort(new Error(reason)));
}
