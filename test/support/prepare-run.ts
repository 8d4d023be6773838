import { buildChainState } from "./chain-state.js";
import { prepareTemplate, stopTestServer } from "./postgres.js";

/**
 * What every integration test file of a run shares, made once by scripts/test.sh before the
 * node:test files start (beside the unit and contract tests):
 * - the saved chain (test/support/chain-state.ts) in the folder given, which scripts/test.sh then
 *   hands to every file as `TEST_CHAIN_STATE_DIR`;
 * - with `DATABASE_URL` set, the migrated template database on that server
 *   (test/support/postgres.ts). Without it each test process has an embedded server of its own,
 *   and builds its own template there.
 *
 * @example
 * node --import tsx test/support/prepare-run.ts "$state_dir"
 */
const dir = process.argv[2];
if (dir === undefined) {
  console.error("usage: node --import tsx test/support/prepare-run.ts <chain state folder>");
  process.exit(2);
}
const started = Date.now();
const [chain, template] = await Promise.all([
  buildChainState(dir),
  process.env.DATABASE_URL ? prepareTemplate() : Promise.resolve(undefined),
]);
await stopTestServer();
console.log(
  `contracts saved at block ${chain.deployment.blockNumber}` +
    (template === undefined ? "" : `, template database ${template}`) +
    ` in ${Date.now() - started} ms`,
);
