/**
 * A node:test reporter that writes one line per test file: seconds from the file's first test
 * event to its last ("busy"), seconds since the previous file finished ("since previous": with
 * one file at a time, the file's whole share of the run, its process start-up included), its
 * passed and failed tests and its path; slowest first. The passed count tells a file whose
 * process ended before all its tests ran (it fails nothing, it only counts fewer).
 * scripts/test.sh adds it when TEST_TIMINGS_FILE is set:
 *
 * @example
 * // TEST_TIMINGS_FILE=/tmp/timings npm test   → /tmp/timings.paired.tsv, /tmp/timings.alone.tsv
 */
export default async function* fileTimingReporter(
  source: AsyncIterable<{ type: string; data?: { file?: string; details?: { type?: string } } }>,
): AsyncGenerator<string> {
  const first = new Map<string, number>();
  const last = new Map<string, number>();
  const failures = new Map<string, number>();
  const passes = new Map<string, number>();
  const started = Date.now();
  for await (const event of source) {
    const file = event.data?.file;
    if (file === undefined) continue;
    const now = Date.now();
    if (event.type !== "test:enqueue" && !first.has(file)) first.set(file, now);
    last.set(file, now);
    if (event.type === "test:fail" && event.data?.details?.type !== "suite") {
      failures.set(file, (failures.get(file) ?? 0) + 1);
    }
    if (event.type === "test:pass" && event.data?.details?.type !== "suite") {
      passes.set(file, (passes.get(file) ?? 0) + 1);
    }
  }
  const seconds = (ms: number) => (ms / 1000).toFixed(1);
  let previous = started;
  const rows = [...last.entries()]
    .sort(([, a], [, b]) => a - b)
    .map(([file, end]) => {
      const row = {
        busy: end - (first.get(file) ?? end),
        since: end - previous,
        passes: passes.get(file) ?? 0,
        failures: failures.get(file) ?? 0,
        file: file.replace(`${process.cwd()}/`, ""),
      };
      previous = end;
      return row;
    })
    .sort((a, b) => b.busy - a.busy);
  yield `# ${seconds(Date.now() - started)} s in all; busy\tsince previous\tpassed\tfailed\tfile\n`;
  for (const row of rows) {
    yield `${seconds(row.busy)}\t${seconds(row.since)}\t${row.passes}\t${row.failures}\t${row.file}\n`;
  }
}
