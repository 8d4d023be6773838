import assert from "node:assert/strict";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { PROJECT_ROOT } from "../../deploy/artifacts.js";
import { parseDoctorArgs } from "../../deploy/doctor.js";
import { findFreePort, startAnvil, type AnvilHandle } from "../../deploy/local-chain.js";

/** Runs `npm run doctor -- <args>` as the operator would (tsx deploy/doctor.ts). */
function doctor(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string }> {
  const tsx = path.join(PROJECT_ROOT, "node_modules", ".bin", "tsx");
  return new Promise((resolve) => {
    execFile(
      tsx,
      [path.join(PROJECT_ROOT, "deploy", "doctor.ts"), ...args],
      {
        cwd: PROJECT_ROOT,
        env: { ...process.env, EVM_VERSION: "", RPC_URL: "", EXPECTED_CHAIN_ID: "", ...env },
      },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number(error.code), out: stdout + stderr }),
    );
  });
}

describe("npm run doctor against anvil at berlin, london, cancun and free gas", () => {
  const chains: Record<string, AnvilHandle> = {};
  before(async () => {
    const start = async (name: string, hardfork?: string, extraArgs: string[] = []) => {
      chains[name] = await startAnvil({
        port: await findFreePort(),
        blockTime: 0,
        ...(hardfork === undefined ? {} : { hardfork }),
        extraArgs,
      });
    };
    await Promise.all([
      start("berlin", "berlin"),
      start("london", "london"),
      start("cancun", "cancun"),
      start("free", "berlin", ["--gas-price", "0"]),
    ]);
  });
  after(async () => {
    for (const chain of Object.values(chains)) await chain.stop();
  });

  it("berlin: legacy type-0 fees, EVM berlin, the default (berlin) build fits: exit 0", async () => {
    const { code, out } = await doctor(["--rpc", chains.berlin!.rpcUrl, "--chain-id", "1236"]);
    assert.equal(code, 0, out);
    assert.match(out, /chain id\s+1236\s+matches 1236/);
    assert.match(out, /client\s+anvil\//);
    assert.match(out, /EVM level\s+berlin \(PUSH0 no, MCOPY no, TLOAD\/TSTORE no, base fee no\)/);
    assert.match(out, /contracts compiled for berlin: ok/);
    assert.match(out, /legacy gasPrice \(type 0\), price from eth_gasPrice/);
    assert.match(out, /batches\s+yes \(no cap up to 100\)/);
    assert.match(out, /block receipts\s+eth_getBlockReceipts yes/);
    assert.match(out, /finality\s+.*consensus dev.*CONFIRMATIONS=0/);
    assert.match(out, /OK: the service can serve this node\./);
  });

  it("london: type-2 fees from eth_feeHistory, EVM london: exit 0", async () => {
    const { code, out } = await doctor(["--rpc", chains.london!.rpcUrl]);
    assert.equal(code, 0, out);
    assert.match(out, /EVM level\s+london \(PUSH0 no/);
    assert.match(out, /EIP-1559 \(type 2\), price from eth_feeHistory/);
  });

  it("london with contracts compiled for shanghai: exit 1, naming PUSH0 and EVM_VERSION", async () => {
    const { code, out } = await doctor(["--rpc", chains.london!.rpcUrl], {
      EVM_VERSION: "shanghai",
    });
    assert.equal(code, 1, out);
    assert.match(
      out,
      /does not support PUSH0 \(pre-Shanghai\); the contracts were compiled for shanghai; rebuild with EVM_VERSION=london/,
    );
    assert.match(out, /NOT OK\./);
    assert.doesNotMatch(out, /missing revert data/);
  });

  it("cancun: every opcode present, even a cancun build fits: exit 0", async () => {
    const { code, out } = await doctor(["--rpc", chains.cancun!.rpcUrl], { EVM_VERSION: "cancun" });
    assert.equal(code, 0, out);
    assert.match(
      out,
      /EVM level\s+cancun \(PUSH0 yes, MCOPY yes, TLOAD\/TSTORE yes, base fee yes\)/,
    );
    assert.match(out, /contracts compiled for cancun: ok/);
  });

  it("free gas (--gas-price 0 on berlin): prices are zero", async () => {
    const { code, out } = await doctor(["--rpc", chains.free!.rpcUrl]);
    assert.equal(code, 0, out);
    assert.match(out, /base fee none, gas price 0/);
    assert.match(out, /legacy gasPrice \(type 0\), free gas \(all prices 0\)/);
  });

  it("a wrong chain id: exit 1, naming the expected id and the setting", async () => {
    const { code, out } = await doctor(["--rpc", chains.cancun!.rpcUrl, "--chain-id", "1"]);
    assert.equal(code, 1, out);
    assert.match(out, /reports chain id 1236, not 1; point RPC_URL at a chain 1 node/);
  });

  it("an unreachable node: exit 1 with 'cannot reach'", async () => {
    const { code, out } = await doctor(["--rpc", `http://127.0.0.1:${await findFreePort()}`]);
    assert.equal(code, 1, out);
    assert.match(out, /cannot reach the node at 127\.0\.0\.1:\d+/);
  });

  it("bad arguments: exit 2 with the usage", async () => {
    const { code, out } = await doctor(["--chain-id", "x"]);
    assert.equal(code, 2, out);
    assert.match(out, /--chain-id must be a positive integer/);
    assert.throws(() => parseDoctorArgs(["--what"], {}), /Unknown argument --what/);
    assert.deepEqual(parseDoctorArgs(["--rpc", "http://n:1", "--json"], { RPC_MAX_BATCH: "20" }), {
      rpc: "http://n:1",
      chainId: undefined,
      maxBatch: 20,
      json: true,
    });
  });
});

describe("npm run doctor against Hardhat's own node (EDR, a second implementation)", () => {
  let node: ChildProcess | undefined;
  let rpcUrl: string;
  before(async () => {
    const port = await findFreePort();
    rpcUrl = `http://127.0.0.1:${port}`;
    // Hardhat 3 needs Node 22: the project's node_modules/.bin comes first on PATH.
    const bin = path.join(PROJECT_ROOT, "node_modules", ".bin");
    node = spawn(
      path.join(bin, "hardhat"),
      ["node", "--chain-id", "1236", "--port", String(port)],
      {
        cwd: PROJECT_ROOT,
        env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` },
        stdio: "ignore",
      },
    );
    const deadline = Date.now() + 60_000;
    for (;;) {
      const up = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      }).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (Date.now() > deadline) throw new Error("hardhat node did not start");
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  });
  after(async () => {
    if (node === undefined || node.exitCode !== null) return;
    const exited = new Promise((resolve) => node!.once("exit", resolve));
    node.kill("SIGTERM");
    await exited;
  });

  it("reads eth_getBlockReceipts as missing (its -32004 'is not supported'), so writes settle per transaction: exit 0", async () => {
    const { code, out } = await doctor(["--rpc", rpcUrl, "--chain-id", "1236"]);
    assert.equal(code, 0, out);
    assert.match(out, /client\s+HardhatNetwork\//);
    assert.match(out, /block receipts\s+eth_getBlockReceipts no\s+per-transaction receipts/);
    assert.match(out, /consensus dev/);
  });
});
