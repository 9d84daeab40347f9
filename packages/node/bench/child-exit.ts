/**
 * The exit of the benchmarks' node child processes (bench/api-node.ts, bench/net-provider.ts): the node
 * stopped once (at most 10 s), then `cleanup`, then the process exits; on SIGTERM, SIGINT and when the
 * parent goes away (the IPC channel closes) too.
 */
export function nodeChildExit(
  node: () => { stop(): Promise<void> } | undefined,
  cleanup: () => void = () => {},
): (code: number) => Promise<never> {
  let stopping = false;
  const shutdown = async (code: number): Promise<never> => {
    if (!stopping) {
      stopping = true;
      const timer = setTimeout(() => process.exit(code), 10_000);
      timer.unref();
      try {
        await node()?.stop();
      } catch {
        // exiting anyway
      }
      cleanup();
    }
    process.exit(code);
  };
  process.on('disconnect', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  process.on('SIGINT', () => void shutdown(0));
  return shutdown;
}
