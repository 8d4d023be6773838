// Loaded by scripts/test.sh into every Node process of the integration tests (NODE_OPTIONS
// --import); acts only in a test file's own process (run by node:test, its script a *.test.*).
//
// Why: with --test-force-exit, a test file's process sends its results to the runner over its
// stdout, a pipe, which is non-blocking on Linux; the forced `process.exit` can then drop the
// last results still buffered, and the runner counts fewer tests, with exit code 0 and nothing
// failed (nodejs/node#64833, open; fixes proposed in nodejs/node#64857 and #64875). Here
// test/relayer/config/config.test.ts alone lost 3-17 of its 48 tests in 3 of 32 runs (none in 40
// with this), and fresh clones' `npm test` counted about 20 fewer tests than ran.
//
// What: the same idiom Node uses before it exits (lib/net.js, lib/tty.js): the stdout pipe's
// handle set to blocking, so every result is written before the process can exit.
import process from "node:process";

if (
  process.env.NODE_TEST_CONTEXT !== undefined &&
  /\.test\.[cm]?[jt]s$/.test(process.argv[1] ?? "")
) {
  process.stdout._handle?.setBlocking?.(true);
}
