/**
 * Composition root: `npm start` (= `exec node --import tsx relayer/src/main.ts`: `exec` so the
 * signal a supervisor sends to npm, which npm relays to its child, reaches this process, not an
 * intermediate `sh -c` that would not pass it on).
 *
 * With nothing configured it starts anvil (chain 1236) and PostgreSQL under DATA_DIR, deploys the
 * contracts once, and serves the API; with RPC_URL, DATABASE_URL, ADMIN_TOKEN, MASTER_KEY and
 * OPERATOR_PRIVATE_KEY set it starts nothing of its own. SIGINT/SIGTERM stop everything in order
 * (HTTP server, workers, database pool, PostgreSQL, anvil) within SHUTDOWN_TIMEOUT_MS. anvil and
 * PostgreSQL run in process groups of their own, so a terminal's Ctrl-C reaches only this process
 * (and npm, which relays it once more: see ECHO_WINDOW_MS).
 */
import { parseEnv, type EnvSettings } from "./config.js";
import { ensureContractTypes } from "./infra/contract-types.js";
// Type-only: erased at run time. The relayer itself is loaded after `ensureContractTypes`, because
// it imports the generated typechain-types/ (missing on a fresh clone until `npm run build`).
import type { RunningRelayer } from "./start-relayer.js";

const EXIT_STARTUP_FAILED = 1;
const EXIT_STOP_TIMEOUT = 70;
/** The same signal again within this many ms is the relayed copy of the first, not a new one. */
const ECHO_WINDOW_MS = 1_000;

/** Embedded processes seen so far (also during start-up), for a last-resort kill. */
const knownPids = new Map<string, number>();

function killKnownProcesses(): void {
  for (const pid of knownPids.values()) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

async function main(): Promise<void> {
  // Parsed again by startRelayer; here for the stop timeout and, before anything is built, to
  // refuse a malformed environment with the message naming the variable.
  let settings: EnvSettings;
  try {
    settings = parseEnv(process.env);
  } catch (error) {
    console.error(`\nStart-up failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(EXIT_STARTUP_FAILED);
  }
  const timeoutMs = settings.shutdownTimeoutMs;
  const production = settings.nodeEnv === "production";
  try {
    await ensureContractTypes({ production, print: (line) => console.log(line) });
  } catch (error) {
    console.error(`\nStart-up failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(EXIT_STARTUP_FAILED);
  }
  const { describeStartupError, startRelayer } = await import("./start-relayer.js");
  let relayer: RunningRelayer | undefined;
  let signalled: { signal: NodeJS.Signals; at: number } | undefined;
  let currentStep = "start-up";
  const abort = new AbortController();

  const armHardTimeout = () =>
    setTimeout(() => {
      console.error(
        `Clean stop took longer than ${timeoutMs} ms (still ${currentStep}); killing the embedded services`,
      );
      killKnownProcesses();
      process.exit(EXIT_STOP_TIMEOUT);
    }, timeoutMs).unref();

  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled !== undefined) {
      const elapsed = Math.round(performance.now() - signalled.at);
      // A terminal's Ctrl-C reaches this process twice: from the terminal and relayed by npm.
      if (signal === signalled.signal && elapsed < ECHO_WINDOW_MS) return;
      // Never cut the clean stop short: say what it waits for; the hard timeout bounds it.
      console.log(
        `${signal} received while stopping: still waiting for ${currentStep} (${elapsed} ms so far; ` +
          `everything is killed after ${timeoutMs} ms, or now with kill -KILL ${process.pid})`,
      );
      return;
    }
    signalled = { signal, at: performance.now() };
    if (relayer !== undefined) {
      void shutdown(relayer, signal, timeoutMs, armHardTimeout);
    } else {
      // Mid start-up: stop at the next step boundary; the hard timeout still applies.
      console.log(`\n${signal}: interrupting start-up (after ${currentStep})...`);
      armHardTimeout();
      abort.abort();
    }
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  try {
    relayer = await startRelayer({
      env: process.env,
      signal: abort.signal,
      onProcess: (name, pid) => knownPids.set(name, pid),
      onStep: (what) => (currentStep = what),
    });
  } catch (error) {
    if (signalled !== undefined) {
      console.log("Stopped during start-up.");
      process.exit(0);
    }
    console.error(`\nStart-up failed: ${describeStartupError(error)}`);
    process.exit(EXIT_STARTUP_FAILED);
  }
  if (signalled !== undefined) await shutdown(relayer, signalled.signal, timeoutMs, armHardTimeout);
}

/** PostgreSQL ending connections: 57P01 admin shutdown, or the socket closing under a client. */
function isConnectionShutdownError(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === "57P01" ||
    code === "ECONNRESET" ||
    code === "ECONNREFUSED" ||
    (typeof message === "string" && /Connection terminated/i.test(message))
  );
}

async function shutdown(
  relayer: RunningRelayer,
  signal: NodeJS.Signals,
  timeoutMs: number,
  armHardTimeout: () => NodeJS.Timeout,
): Promise<void> {
  // PostgreSQL stops last, but a server stopped from outside (or an external DATABASE_URL going
  // away) closes connections while workers are still stopping; some driver clients (pg-boss'
  // own) have no 'error' listener. While stopping, such errors are expected: carry on.
  process.on("uncaughtException", (error) => {
    if (isConnectionShutdownError(error)) return;
    console.error(
      `Uncaught error while stopping: ${error instanceof Error ? error.message : String(error)}`,
    );
    killKnownProcesses();
    process.exit(EXIT_STOP_TIMEOUT);
  });
  console.log(`\n${signal}: stopping (at most ${timeoutMs} ms)...`);
  const started = performance.now();
  const timer = armHardTimeout();
  await relayer.stop();
  clearTimeout(timer);
  console.log(`Stopped in ${Math.round(performance.now() - started)} ms.`);
  process.exit(0);
}

void main();
