import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { after, before } from "node:test";
import { startTestStack, type TestStack } from "../../support/stack.js";

const NODE = path.resolve("node_modules/.bin/node");

/** Starts the test-only relayer child; resolves with its base URL once it listens. */
export function startChild(
  stack: TestStack,
  rpcUrl = stack.rpcUrl,
): Promise<{ child: ChildProcess; baseUrl: string }> {
  const child = spawn(NODE, ["--import", "tsx", "test/relayer/writes/relayer-child.ts"], {
    env: {
      ...process.env,
      DATABASE_URL: stack.testDatabase.url,
      RPC_URL: rpcUrl,
      CONTRACTS: JSON.stringify(stack.ctx.contracts),
      MASTER_KEY: stack.ctx.config.masterKey,
      ADMIN_TOKEN: stack.adminToken,
      LEASE_MS: "3000",
      CHILD_LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /READY (\d+)/.exec(out);
      if (match) resolve({ child, baseUrl: `http://127.0.0.1:${match[1]}` });
    });
    child.on("exit", (code) => reject(new Error(`relayer child exited early (${code})`)));
  });
}

/**
 * Registers the suite's hooks for tests that run the relayer as a child process: before them, a
 * test stack with 1 s anvil blocks; after them, every child started through `start` is killed and
 * the stack stopped. `stack` is readable once the `before` hook has run.
 */
export function useChildRelayers(): {
  readonly stack: TestStack;
  start(rpcUrl?: string): Promise<{ child: ChildProcess; baseUrl: string }>;
} {
  let stack: TestStack | undefined;
  const children: ChildProcess[] = [];
  const started = () => {
    if (stack === undefined) throw new Error("the test stack starts in before()");
    return stack;
  };
  before(async () => {
    stack = await startTestStack({ blockTime: 1, logLevel: "warn" });
  });
  after(async () => {
    for (const child of children) child.kill("SIGKILL");
    await stack?.stop();
  });
  return {
    get stack() {
      return started();
    },
    async start(rpcUrl?: string) {
      const relayer = await startChild(started(), rpcUrl);
      children.push(relayer.child);
      return relayer;
    },
  };
}
