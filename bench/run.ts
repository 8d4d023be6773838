/**
 * `npm run bench -- <name>`: runs one benchmark by name (`writes`, `reads`, `webhooks`, `scale`,
 * `signers`, `rotation`, `recovery`, `cancel`, `people`, `soak`), or all of them in turn without
 * a name (`soak` runs 30 minutes: `BENCH_SOAK_MINUTES`). Each benchmark prints its own figures
 * and ratios.
 */
const BENCHES: Record<string, () => Promise<void>> = {
  writes: async () => (await import("./writes.js")).runWritesBench(),
  reads: async () => (await import("./reads.js")).runReadsBench(),
  webhooks: async () => (await import("./webhooks.js")).runWebhooksBench(),
  scale: async () => (await import("./scale.js")).runScaleBench(),
  signers: async () => (await import("./signers.js")).runSignersBench(),
  rotation: async () => (await import("./rotation.js")).runRotationBench(),
  recovery: async () => (await import("./recovery.js")).runRecoveryBench(),
  cancel: async () => (await import("./cancel.js")).runCancelBench(),
  people: async () => (await import("./people.js")).runPeopleBench(),
  soak: async () => (await import("./long-run.js")).runLongRunBench(),
};

const names = process.argv.slice(2).filter((arg) => !arg.startsWith("-"));
const selected = names.length === 0 ? Object.keys(BENCHES) : names;
for (const name of selected) {
  const run = BENCHES[name];
  if (run === undefined) {
    console.error(`Unknown benchmark "${name}". Known: ${Object.keys(BENCHES).join(", ")}`);
    process.exit(2);
  }
  console.log(`\n== bench: ${name}`);
  await run();
}
process.exit(0);
