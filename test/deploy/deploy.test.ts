import assert from "node:assert/strict";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { id, JsonRpcProvider, Wallet } from "ethers";
import { AssetToken__factory } from "../../typechain-types/factories/AssetToken__factory.js";
import { AssetTypeRegistry__factory } from "../../typechain-types/factories/AssetTypeRegistry__factory.js";
import { Marketplace__factory } from "../../typechain-types/factories/Marketplace__factory.js";
import { artifactPath, ensureArtifacts, PROJECT_ROOT } from "../../deploy/artifacts.js";
import { DEFAULT_ASSET_TYPES } from "../../deploy/asset-types.js";
import { parseCliConfig } from "../../deploy/cli.js";
import { deployAll, grantRegistrar, isRegistrar, type DeployResult } from "../../deploy/deploy.js";
import { loadDeployment, type Deployment } from "../../deploy/deployment-file.js";
import {
  AbiMismatchError,
  ArtifactError,
  ConfigError,
  DeploymentFileError,
  InsufficientFundsError,
  RpcUnreachableError,
  WrongChainError,
} from "../../deploy/errors.js";
import {
  findFreePort,
  PortInUseError,
  startAnvil,
  type AnvilHandle,
} from "../../deploy/local-chain.js";
import { ANVIL_DEV_PRIVATE_KEY } from "../../deploy/rpc.js";
import { eventually } from "../support/eventually.js";

const DEPLOYER = new Wallet(ANVIL_DEV_PRIVATE_KEY).address;
const EXTRA_REGISTRAR = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"; // anvil account #1

async function nonceOf(rpcUrl: string, account: string): Promise<number> {
  const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true });
  try {
    return await provider.getTransactionCount(account, "latest");
  } finally {
    provider.destroy();
  }
}

async function withProvider<T>(rpcUrl: string, use: (provider: JsonRpcProvider) => Promise<T>) {
  const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true });
  try {
    return await use(provider);
  } finally {
    provider.destroy();
  }
}

describe("deployAll against a real anvil", () => {
  let dir: string;
  let stateFile: string;
  let outFile: string;
  let port: number;
  let chain: AnvilHandle | undefined;
  let first: DeployResult;
  const lines: string[] = [];
  const log = (line: string) => lines.push(line);

  before(async () => {
    await ensureArtifacts({ mode: "auto" });
    dir = await mkdtemp(path.join(tmpdir(), "deploy-test-"));
    stateFile = path.join(dir, "chain", "state.json");
    outFile = path.join(dir, "deployments", "1236.json");
    port = await findFreePort();
    chain = await startAnvil({ port, blockTime: 0, stateFile });
  });

  after(async () => {
    await chain?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const deploy = (extra: { force?: boolean; registrars?: string[]; rpcUrl?: string } = {}) =>
    deployAll({
      rpcUrl: extra.rpcUrl ?? chain!.rpcUrl,
      deployerPrivateKey: ANVIL_DEV_PRIVATE_KEY,
      outFile,
      build: "never",
      log,
      ...(extra.force === undefined ? {} : { force: extra.force }),
      ...(extra.registrars === undefined ? {} : { registrars: extra.registrars }),
    });

  test("deployAll deploys the three contracts, registers the 29 default types and writes the record", async () => {
    first = await deploy({ registrars: [EXTRA_REGISTRAR] });
    assert.equal(first.status, "deployed");
    const record = await loadDeployment(outFile);
    assert.deepEqual(record.addresses, first.deployment.addresses);
    assert.equal(record.chainId, 1236);
    assert.equal(record.deployer, DEPLOYER);
    assert.ok(record.blockNumber >= 1);

    await withProvider(chain!.rpcUrl, async (provider) => {
      const registry = AssetTypeRegistry__factory.connect(
        record.addresses.assetTypeRegistry,
        provider,
      );
      const types = await registry.getFunction("allTypes")();
      assert.deepEqual([...types], [...DEFAULT_ASSET_TYPES]);
      assert.equal(await registry.getFunction("typeCount")(), 29n);
      const token = AssetToken__factory.connect(record.addresses.assetToken, provider);
      assert.equal(await token.getFunction("registry")(), record.addresses.assetTypeRegistry);
      const market = Marketplace__factory.connect(record.addresses.marketplace, provider);
      assert.equal(await market.getFunction("token")(), record.addresses.assetToken);
      // Compliance: the token knows its marketplace, and the deployer holds the token's roles.
      assert.equal(await token.getFunction("marketplace")(), record.addresses.marketplace);
      for (const role of ["ENFORCER_ROLE", "PAUSER_ROLE", "REGISTRAR_ROLE"])
        assert.equal(await token.getFunction("hasRole")(id(role), DEPLOYER), true, role);
    });
  });

  test("deployAll grants REGISTRAR_ROLE to the deployer and to the requested registrars", async () => {
    await withProvider(chain!.rpcUrl, async (provider) => {
      const registry = first.deployment.addresses.assetTypeRegistry;
      assert.equal(await isRegistrar(provider, registry, DEPLOYER), true);
      assert.equal(await isRegistrar(provider, registry, EXTRA_REGISTRAR), true);
      const admin = AssetTypeRegistry__factory.connect(registry, provider);
      assert.equal(await admin.getFunction("hasRole")("0x" + "00".repeat(32), DEPLOYER), true);
    });
  });

  test("deployAll run again on the same chain sends no transaction and reports up-to-date", async () => {
    const before = await nonceOf(chain!.rpcUrl, DEPLOYER);
    const again = await deploy({ registrars: [EXTRA_REGISTRAR] });
    assert.equal(again.status, "up-to-date");
    assert.deepEqual(again.txHashes, []);
    assert.deepEqual(again.deployment.addresses, first.deployment.addresses);
    assert.equal(await nonceOf(chain!.rpcUrl, DEPLOYER), before);
    assert.ok(lines.includes("Up to date: nothing to do"));
  });

  test("grantRegistrar grants once and is a no-op for an account that has the role", async () => {
    const account = Wallet.createRandom().address;
    await withProvider(chain!.rpcUrl, async (provider) => {
      const signer = new Wallet(ANVIL_DEV_PRIVATE_KEY, provider);
      const registry = first.deployment.addresses.assetTypeRegistry;
      const granted = await grantRegistrar(signer, registry, account);
      assert.equal(granted.granted, true);
      assert.match(granted.txHash ?? "", /^0x[0-9a-f]{64}$/);
      assert.deepEqual(await grantRegistrar(signer, registry, account), { granted: false });
      assert.equal(await isRegistrar(provider, registry, account), true);
    });
  });

  test("the deployment is still live after anvil restarts with its persisted state", async () => {
    const nonce = await nonceOf(chain!.rpcUrl, DEPLOYER);
    await chain!.stop();
    chain = await startAnvil({ port, blockTime: 0, stateFile });
    assert.equal(await nonceOf(chain.rpcUrl, DEPLOYER), nonce);
    const again = await deploy();
    assert.equal(again.status, "up-to-date");
    assert.deepEqual(again.deployment.addresses, first.deployment.addresses);
    assert.equal(await nonceOf(chain.rpcUrl, DEPLOYER), nonce);
  });

  test("deployAll refuses when a recorded ABI hash differs, and redeploys with force", async () => {
    const record = JSON.parse(await readFile(outFile, "utf8")) as Deployment;
    record.contracts.Marketplace.abiHash = "0x" + "11".repeat(32);
    await writeFile(outFile, JSON.stringify(record));
    await assert.rejects(deploy(), AbiMismatchError);
    const forced = await deploy({ force: true });
    assert.equal(forced.status, "redeployed");
    assert.notEqual(
      forced.deployment.addresses.marketplace,
      first.deployment.addresses.marketplace,
    );
    first = forced;
  });

  test("deployAll redeploys and overwrites the record when the chain was reset", async () => {
    const freshPort = await findFreePort();
    const fresh = await startAnvil({ port: freshPort, blockTime: 0 });
    try {
      lines.length = 0;
      const result = await deploy({ rpcUrl: fresh.rpcUrl });
      assert.equal(result.status, "redeployed");
      assert.ok(lines.some((line) => line.includes("the chain was reset")));
      const record = await loadDeployment(outFile);
      assert.deepEqual(record.addresses, result.deployment.addresses);
      await withProvider(fresh.rpcUrl, async (provider) => {
        assert.notEqual(await provider.getCode(record.addresses.assetToken), "0x");
      });
    } finally {
      await fresh.stop();
    }
  });

  test("deployAll fails with WrongChainError when the node is not on the expected chain", async () => {
    await assert.rejects(
      deployAll({
        rpcUrl: chain!.rpcUrl,
        deployerPrivateKey: ANVIL_DEV_PRIVATE_KEY,
        outFile: path.join(dir, "other.json"),
        expectedChainId: 1,
        build: "never",
        log,
      }),
      WrongChainError,
    );
  });

  test("deployAll refuses with ArtifactError, sending nothing, when artifacts/ differ from the loaded typechain-types/", async () => {
    const root = path.join(dir, "rebuilt");
    await cp(
      path.join(PROJECT_ROOT, "artifacts", "contracts"),
      path.join(root, "artifacts", "contracts"),
      {
        recursive: true,
      },
    );
    const file = artifactPath("Marketplace", root);
    const artifact = JSON.parse(await readFile(file, "utf8")) as { bytecode: string };
    artifact.bytecode = `${artifact.bytecode}00`;
    await writeFile(file, JSON.stringify(artifact));
    const nonce = await nonceOf(chain!.rpcUrl, DEPLOYER);
    await assert.rejects(
      deployAll({
        rpcUrl: chain!.rpcUrl,
        deployerPrivateKey: ANVIL_DEV_PRIVATE_KEY,
        outFile: path.join(dir, "rebuilt.json"),
        build: "never",
        root,
        log,
      }),
      (error: unknown) => {
        assert.ok(error instanceof ArtifactError);
        assert.match(error.message, /Marketplace/);
        return true;
      },
    );
    assert.equal(await nonceOf(chain!.rpcUrl, DEPLOYER), nonce);
  });

  test("deployAll fails with InsufficientFundsError for an unfunded deployer", async () => {
    await assert.rejects(
      deployAll({
        rpcUrl: chain!.rpcUrl,
        deployerPrivateKey: Wallet.createRandom().privateKey,
        outFile: path.join(dir, "unfunded.json"),
        build: "never",
        log,
      }),
      InsufficientFundsError,
    );
  });
});

describe("deploy errors and helpers", () => {
  test("deployAll fails with RpcUnreachableError when nothing listens at RPC_URL", async () => {
    const port = await findFreePort();
    await assert.rejects(
      deployAll({
        rpcUrl: `http://127.0.0.1:${port}`,
        deployerPrivateKey: ANVIL_DEV_PRIVATE_KEY,
        build: "never",
        log: () => {},
      }),
      RpcUnreachableError,
    );
  });

  test("startAnvil fails with PortInUseError when the port holds something that is not anvil", async () => {
    const server = http.createServer((_request, response) => response.end("not json-rpc"));
    const port = await findFreePort();
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    try {
      await assert.rejects(startAnvil({ port, blockTime: 0 }), PortInUseError);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test("startAnvil with pacedBlocks mines on its schedule, and anvil then keeps only --prune-history states", async () => {
    const rpc = (url: string) => new JsonRpcProvider(url, 1236, { staticNetwork: true });
    const oldState = async (url: string) => {
      const provider = rpc(url);
      try {
        const head = await provider.getBlockNumber();
        return await provider
          .send("eth_getBalance", [DEPLOYER, `0x${(head - 8).toString(16)}`])
          .then(
            () => "kept",
            () => "pruned",
          );
      } finally {
        provider.destroy();
      }
    };
    // anvil's own 1 s interval: 1,500 states kept whatever --prune-history says (its
    // `update_interval_mine_block_time`), so the state 8 blocks back is still there.
    const own = await startAnvil({
      port: await findFreePort(),
      blockTime: 1,
      extraArgs: ["--prune-history", "3"],
    });
    try {
      await rpc(own.rpcUrl).send("anvil_mine", ["0xc"]);
      assert.equal(await oldState(own.rpcUrl), "kept");
    } finally {
      await own.stop();
    }
    const paced = await startAnvil({
      port: await findFreePort(),
      blockTime: 0.2,
      pacedBlocks: true,
      extraArgs: ["--prune-history", "3"],
    });
    const provider = rpc(paced.rpcUrl);
    try {
      // A transaction waits for the next paced block (`--no-mining`), then is in it.
      const wallet = new Wallet(ANVIL_DEV_PRIVATE_KEY, provider);
      const sent = await wallet.sendTransaction({ to: DEPLOYER, value: 1n });
      const receipt = await sent.wait(1, 10_000);
      assert.equal(receipt?.status, 1);
      const start = await provider.getBlockNumber();
      await eventually(
        async () => assert.ok((await provider.getBlockNumber()) >= start + 10),
        15_000,
      );
      assert.equal(await oldState(paced.rpcUrl), "pruned");
    } finally {
      provider.destroy();
      await paced.stop();
    }
  });

  test("startAnvil reuses an anvil with chain id 1236 already on the port, and refuses with reuseExisting false", async () => {
    const port = await findFreePort();
    const owner = await startAnvil({ port, blockTime: 0 });
    try {
      const reused = await startAnvil({ port, blockTime: 0 });
      assert.equal(reused.started, false);
      await reused.stop(); // must not stop the owner's node
      assert.equal((await nonceOf(owner.rpcUrl, DEPLOYER)) >= 0, true);
      await assert.rejects(startAnvil({ port, reuseExisting: false }), PortInUseError);
      await assert.rejects(startAnvil({ port, chainId: 31337 }), PortInUseError);
    } finally {
      await owner.stop();
    }
  });

  test("loadDeployment rejects a record with a bad address, naming the field", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "deploy-file-"));
    try {
      const file = path.join(dir, "1236.json");
      await writeFile(
        file,
        JSON.stringify({ chainId: 1236, contracts: { AssetToken: { address: "0x12" } } }),
      );
      await assert.rejects(loadDeployment(file), (error: unknown) => {
        assert.ok(error instanceof DeploymentFileError);
        assert.match(error.message, /contracts\.AssetToken\.address/);
        return true;
      });
      await assert.rejects(loadDeployment(path.join(dir, "missing.json")), DeploymentFileError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("DEFAULT_ASSET_TYPES matches contracts/libraries/DefaultAssetTypes.sol", async () => {
    const source = await readFile(
      path.join(PROJECT_ROOT, "contracts", "libraries", "DefaultAssetTypes.sol"),
      "utf8",
    ).catch(() => undefined);
    if (source === undefined) return; // the library is optional for the contracts
    const names = [...source.matchAll(/list\[\d+\] = "([^"]+)";/g)].map((match) => match[1]);
    assert.deepEqual(names, [...DEFAULT_ASSET_TYPES]);
    assert.equal(DEFAULT_ASSET_TYPES.length, 29);
  });

  test("the deploy CLI rejects a malformed DEPLOYER_PRIVATE_KEY naming the variable, not the value", () => {
    const secret = "0x1234notakey";
    assert.throws(
      () => parseCliConfig([], { DEPLOYER_PRIVATE_KEY: secret }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /DEPLOYER_PRIVATE_KEY/);
        assert.equal(error.message.includes(secret), false);
        return true;
      },
    );
    assert.throws(() => parseCliConfig([], { RPC_URL: "not a url" }), /RPC_URL/);
    assert.throws(() => parseCliConfig(["--nope"], {}), ConfigError);
    const config = parseCliConfig(["--force"], {});
    assert.equal(config.help, false);
    if (!config.help) {
      assert.equal(config.force, true);
      assert.equal(config.RPC_URL, "http://127.0.0.1:8545");
    }
  });
});
