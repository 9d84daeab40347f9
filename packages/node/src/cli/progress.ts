/**
 * The progress bar of initial block download on a terminal: one line on stderr, drawn again every
 * second over itself while IBD runs and cleared when it ends (the log lines keep going to stdout).
 */
import type { IbdProgress } from '../sync/index.ts';

/** `IBD [#####-----] 1234/5000 blocks  25%  310.5 blocks/s  12 s left` (`width` columns of bar). */
export function ibdProgressLine(p: IbdProgress, width = 30): string {
  const target = Math.max(p.targetHeight, p.height);
  const frac = target === 0 ? 0 : Math.min(1, p.height / target);
  const filled = Math.round(frac * width);
  const eta = p.etaS === null ? 'time left unknown' : `${formatSeconds(p.etaS)} left`;
  return (
    `IBD [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${p.height}/${target} blocks ` +
    `${Math.floor(frac * 100)}%  ${p.rate.toFixed(1)} blocks/s  ${eta}`
  );
}

function formatSeconds(s: number): string {
  const t = Math.round(s);
  if (t < 120) return `${t} s`;
  if (t < 7200) return `${Math.round(t / 60)} min`;
  return `${(t / 3600).toFixed(1)} h`;
}

/**
 * Draws the bar on `out` (a terminal) every second while `progress` answers; returns the stop. Nothing
 * is drawn on a stream that is not a terminal.
 */
export function showIbdProgress(
  progress: () => IbdProgress | null,
  out: NodeJS.WriteStream = process.stderr,
): () => void {
  if (!out.isTTY) return () => {};
  let shown = false;
  const timer = setInterval(() => {
    const p = progress();
    if (p !== null) {
      const width = Math.max(10, Math.min(30, (out.columns ?? 80) - 60));
      out.write(`\r${ibdProgressLine(p, width)}\x1b[K`);
      shown = true;
    } else if (shown) {
      out.write('\r\x1b[K');
      shown = false;
    }
  }, 1000);
  timer.unref();
  return () => {
    clearInterval(timer);
    if (shown) out.write('\r\x1b[K');
  };
}
