import { spawn } from "node:child_process";
import path from "node:path";
import { PROJECT_ROOT } from "../../deploy/artifacts.js";
import type { AnvilHandle } from "../../deploy/local-chain.js";
import { LOCAL_CHAIN_ID, probeNode } from "../../deploy/rpc.js";

const BIN = path.join(PROJECT_ROOT, "node_modules", ".bin");

/**
 * Starts Hardhat's own node (EDR: a second EVM implementation, one block per transaction, the
 * same first dev account as anvil) on 127.0.0.1:`port` with chain id 1236, and waits until it
 * answers. It runs on the Node 22 of `node_modules/.bin` (Hardhat 3 refuses Node 20). The handle
 * has the shape of `startAnvil`'s, so `startTestStack({ startChain })` takes it.
 *
 * @example
 * const stack = await startWriteStack({ startChain: startHardhatNode });
 */
export async function startHardhatNode(
  port: number,
  readyTimeoutMs = 60_000,
): Promise<AnvilHandle> {
  const args = [
    path.join(PROJECT_ROOT, "node_modules", "hardhat", "dist", "src", "cli.js"),
    "node",
    "--chain-id",
    String(LOCAL_CHAIN_ID),
    "--hostname",
    "127.0.0.1",
    "--port",
    String(port),
  ];
  const child = spawn(path.join(BIN, "node"), args, {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PATH: `${BIN}${path.delimiter}${process.env.PATH ?? ""}` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4_000);
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  };

  const rpcUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`hardhat node exited during start-up:\n${output}`);
    const info = await probeNode(rpcUrl, 1_000).catch(() => undefined);
    if (info?.chainId === LOCAL_CHAIN_ID) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `hardhat node did not answer at ${rpcUrl} within ${readyTimeoutMs} ms:\n${output}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { rpcUrl, chainId: LOCAL_CHAIN_ID, started: true, pid: child.pid, stop };
}
