/**
 * node:test reporter that prints, after the whole run, one block per failed test: its file, line,
 * name and error. The TAP stream stays the main output; this summary makes a failure findable
 * when only the end of a long log is kept.
 */
import { inspect } from 'node:util';

export default async function* failureSummary(source) {
  const failures = [];
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, line, details } = event.data;
    const error = details?.error;
    // A suite fails because a subtest failed: the subtest's own block says why.
    if (error?.failureType === 'subtestsFailed') continue;
    const cause = error?.cause ?? error;
    failures.push({ where: `${file ?? '?'}:${line ?? '?'}`, name, cause });
  }
  if (failures.length === 0) return;
  yield `\n# failed tests: ${failures.length}\n`;
  for (const f of failures) {
    const text = (cause) =>
      cause instanceof Error ? (cause.stack ?? String(cause)) : inspect(cause, { depth: 4 });
    yield `# FAILED ${f.name}\n#   at ${f.where}\n${text(f.cause)
      .split('\n')
      .slice(0, 25)
      .map((l) => `#     ${l}`)
      .join('\n')}\n`;
  }
}
