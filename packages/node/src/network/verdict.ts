/** The joint verdict of a gossip topic's handlers on a received message (interface.ts `GossipHandler`). */
import type { GossipVerdict } from './interface.ts';

/** Any `reject` rejects, else any `ignore` ignores, else any `accept` accepts; no verdict at all ignores. */
export function jointVerdict(verdicts: readonly (GossipVerdict | undefined)[]): GossipVerdict {
  if (verdicts.includes('reject')) return 'reject';
  if (verdicts.includes('ignore')) return 'ignore';
  return verdicts.includes('accept') ? 'accept' : 'ignore';
}
