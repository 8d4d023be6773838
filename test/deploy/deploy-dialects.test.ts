import assert from "node:assert/strict";
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { JsonRpcProvider, Wallet, id, parseEther } from "ethers";
import { AssetToken__factory } from "../../typechain-types/factories/AssetToken__factory.js";
import { Marketplace__factory } from "../../typechain-types/factories/Marketplace__factory.js";
import {
  artifactsEvmVersion,
  CONTRACT_NAMES,
  ensureArtifacts,
  PROJECT_ROOT,
} from "../../deploy/artifacts.js";
import { deployAll } from "../../deploy/deploy.js";
import { loadDeployment } from "../../deploy/deployment-file.js";
import { NodeUnsupportedError } from "../../deploy/errors.js";
import { findFreePort, startAnvil, type AnvilHandle } from "../../deploy/local-chain.js";
import { ANVIL_DEV_PRIVATE_KEY } from "../../deploy/rpc.js";
import { cidV1, digestOf } from "../contracts/helpers/cid.js";

const DEPLOYER = new Wallet(ANVIL_DEV_PRIVATE_KEY).address;

/** A copy of this repository's artifacts whose build info says `evmVersion` (same bytecode). */
async function artifactsClaiming(evmVersion: string): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), "deploy-evm-"));
  for (const name of CONTRACT_NAMES) {
    const from = path.join(PROJECT_ROOT, "artifacts", "contracts", `${name}.sol`);
    await cp(from, path.join(root, "artifacts", "contracts", `${name}.sol`), { recursive: true });
  }
  const infoDir = path.join(PROJECT_ROOT, "artifacts", "build-info");
  await mkdir(path.join(root, "artifacts", "build-info"), { recursive: true });
  for (const file of await readdir(infoDir)) {
    if (file.endsWith(".output.json")) continue;
    const info = JSON.parse(await readFile(path.join(infoDir, file), "utf8")) as {
      input: { settings: { evmVersion: string } };
    };
    info.input.settings.evmVersion = evmVersion;
    await writeFile(path.join(root, "artifacts", "build-info", file), JSON.stringify(info));
  }
  return root;
}

describe("npm run deploy on older chains", () => {
  const chains: AnvilHandle[] = [];
  const dirs: string[] = [];
  before(async () => {
    await ensureArtifacts({ mode: "auto" });
  });
  after(async () => {
    for (const chain of chains) await chain.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });
  const anvil = async (hardfork: string) => {
    const chain = await startAnvil({ port: await findFreePort(), blockTime: 0, hardfork });
    chains.push(chain);
    return chain;
  };
  const tempDir = async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "deploy-dialect-"));
    dirs.push(dir);
    return dir;
  };

  it("the default build targets berlin: it deploys on anvil --hardfork berlin, the record says so, and a mint, list, buy and redeem work there (mint at most 155,000 gas)", async () => {
    assert.equal(await artifactsEvmVersion(), "berlin");
    const chain = await anvil("berlin");
    const lines: string[] = [];
    const outFile = path.join(await tempDir(), "1236.json");
    const result = await deployAll({
      rpcUrl: chain.rpcUrl,
      deployerPrivateKey: ANVIL_DEV_PRIVATE_KEY,
      outFile,
      build: "never",
      log: (line) => lines.push(line),
    });
    assert.equal(result.status, "deployed");
    assert.equal((await loadDeployment(outFile)).evmVersion, "berlin");
    assert.ok(lines.includes("Contracts compiled for EVM berlin"), lines.join("\n"));

    // No response cache: consecutive sends must each read the pending nonce.
    const provider = new JsonRpcProvider(chain.rpcUrl, 1236, {
      staticNetwork: true,
      cacheTimeout: -1,
    });
    try {
      const minter = new Wallet(ANVIL_DEV_PRIVATE_KEY, provider);
      const buyer = new Wallet(
        "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d", // anvil account #1
        provider,
      );
      const { assetToken, marketplace } = result.deployment.addresses;
      const token = AssetToken__factory.connect(assetToken, minter);
      const mint = await (
        await token.mint("Bond", cidV1(digestOf("berlin")), id("pw"), { value: parseEther("0.1") })
      ).wait();
      assert.equal(mint?.status, 1);
      assert.equal(mint?.type, 0, "a legacy transaction: berlin has no base fee");
      assert.ok(mint.gasUsed <= 155_000n, `mint gas ${mint.gasUsed}`);
      const tokenId = 1n;
      const terms = "0x" + (10n ** 18n).toString(16).padStart(64, "0") + "1e".padStart(64, "0");
      await (
        await token.getFunction("safeTransferFrom(address,address,uint256,bytes)")(
          DEPLOYER,
          marketplace,
          tokenId,
          terms,
        )
      ).wait();
      const market = Marketplace__factory.connect(marketplace, buyer);
      await (await market.buy(1n, parseEther("1"), { value: parseEther("1") })).wait();
      assert.equal(await token.ownerOf(tokenId), buyer.address);
      await (await token.connect(buyer).redeem(tokenId)).wait();
      assert.equal(await token.totalStaked(), 0n);
    } finally {
      provider.destroy();
    }
  });

  it("a build for shanghai is refused on a london node before anything is sent, naming PUSH0 and EVM_VERSION (never 'missing revert data')", async () => {
    const chain = await anvil("london");
    const root = await artifactsClaiming("shanghai");
    dirs.push(root);
    const provider = new JsonRpcProvider(chain.rpcUrl, 1236, { staticNetwork: true });
    try {
      const nonce = await provider.getTransactionCount(DEPLOYER, "latest");
      await assert.rejects(
        deployAll({
          rpcUrl: chain.rpcUrl,
          deployerPrivateKey: ANVIL_DEV_PRIVATE_KEY,
          outFile: path.join(await tempDir(), "1236.json"),
          build: "never",
          root,
          log: () => {},
        }),
        (error: unknown) => {
          assert.ok(error instanceof NodeUnsupportedError);
          assert.match(
            error.message,
            /^the node at 127\.0\.0\.1:\d+ does not support PUSH0 \(pre-Shanghai\); the contracts were compiled for shanghai; rebuild with EVM_VERSION=london$/,
          );
          assert.doesNotMatch(error.message, /missing revert data/);
          return true;
        },
      );
      assert.equal(await provider.getTransactionCount(DEPLOYER, "latest"), nonce, "nothing sent");
    } finally {
      provider.destroy();
    }
  });
});
