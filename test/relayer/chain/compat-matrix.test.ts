import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startAnvil, type AnvilHandle } from "../../../deploy/local-chain.js";
import { ChainProbe } from "../../support/chain-probe.js";
import { startHardhatNode } from "../../support/hardhat-node.js";
import {
  methodNotFound,
  startRpcFaultProxy,
  type RpcFaultProxy,
} from "../../support/rpc-fault-proxy.js";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStack, type WriteStack } from "../writes/helpers.js";
import { waitForAnswers } from "./write-outcomes.js";

/** How long one write may take before the case fails (a node the relayer cannot use). */
const WRITE_MS = 15_000;

/** One kind of node the relayer must work with. */
interface Dialect {
  name: string;
  /** Starts the node instead of the default anvil. */
  startChain?: (port: number) => Promise<AnvilHandle>;
  /** Puts a fault proxy in front of the node, set up by this (before the deploy). */
  proxy?: (proxy: RpcFaultProxy) => void;
}

const anvilWith =
  (...args: string[]) =>
  (port: number) =>
    startAnvil({ port, blockTime: 0, reuseExisting: false, extraArgs: args });

const DIALECTS: Dialect[] = [
  {
    name: "anvil --hardfork berlin (no base fee, no PUSH0: legacy gas price only)",
    startChain: anvilWith("--hardfork", "berlin"),
  },
  {
    name: "anvil --hardfork london (no PUSH0)",
    startChain: anvilWith("--hardfork", "london"),
  },
  { name: "anvil --hardfork cancun", startChain: anvilWith("--hardfork", "cancun") },
  {
    name: "anvil --base-fee 0 --gas-price 0 (free gas)",
    startChain: anvilWith("--base-fee", "0", "--gas-price", "0"),
  },
  {
    name: "a node without eth_feeHistory (-32601)",
    proxy: (p) => p.addRule({ method: "eth_feeHistory", action: methodNotFound("eth_feeHistory") }),
  },
  {
    name: "a node without eth_getBlockReceipts (-32601)",
    proxy: (p) =>
      p.addRule({ method: "eth_getBlockReceipts", action: methodNotFound("eth_getBlockReceipts") }),
  },
  {
    name: "a gateway that refuses JSON-RPC batches (HTTP 400, -32600)",
    proxy: (p) => p.refuseBatches(),
  },
  { name: "Hardhat's own node (EDR)", startChain: startHardhatNode },
];

/**
 * One write through the API (`Prefer: respond-async`, then its status until answered); returns
 * its result once confirmed.
 */
async function write(
  org: TestOrg,
  kind: string,
  body: Record<string, unknown>,
): Promise<Record<string, string>> {
  const res = await org.api("POST", `/api/v1/write/${kind}`, {
    headers: { prefer: "respond-async" },
    body,
  });
  assert.equal(res.status, 202, `${kind}: ${res.text}`);
  const id = (res.body as { transactionId: string }).transactionId;
  const [status] = await waitForAnswers(org.api, [id], WRITE_MS);
  assert.equal(status?.status, "confirmed", `${kind}: ${JSON.stringify(status)}`);
  return status.result as Record<string, string>;
}

/** Issue (alice), list (alice), buy (bob), then the chain and the read API agree. */
async function marketplaceRound(stack: WriteStack): Promise<void> {
  const chain = new ChainProbe(stack.rpcUrl, stack.ctx.contracts.assetToken);
  try {
    const [alice, bob] = await Promise.all([stack.registerOrg(), stack.registerOrg()]);
    const { tokenId } = await write(alice, "issue-asset", assetBody({ name: "Compat" }));
    assert.ok(tokenId !== undefined);
    assert.equal(await chain.ownerOf(tokenId), alice.walletAddress);

    const { listingId } = await write(alice, "marketplace/list", { tokenId, priceInCOIN: "1" });
    assert.ok(listingId !== undefined);
    const bought = await write(bob, "marketplace/buy", { listingId, maxPriceInCOIN: "1.5" });
    assert.equal(bought.tokenId, tokenId);
    assert.equal(await chain.ownerOf(tokenId), bob.walletAddress);

    const asset = await stack.api("GET", `/api/v1/assets/${tokenId}`);
    assert.equal(asset.status, 200, asset.text);
    assert.equal(
      (asset.body as { owner: string }).owner.toLowerCase(),
      bob.walletAddress.toLowerCase(),
    );
    const listing = await stack.api("GET", `/api/v1/marketplace/${listingId}`);
    assert.equal(listing.status, 200, listing.text);
    assert.equal((listing.body as { state: string }).state, "sold");
  } finally {
    chain.close();
  }
}

describe("compatibility matrix: deploy, issue, list, buy and read on each kind of node", () => {
  for (const dialect of DIALECTS) {
    it(`${dialect.name}: deploys, then issue, list, buy and read work through the API`, async () => {
      let proxy: RpcFaultProxy | undefined;
      let stack: WriteStack | undefined;
      try {
        stack = await startWriteStack({
          // The deploy is part of each case: through the proxy and its rule, on the node itself.
          deploy: "fresh",
          ...(dialect.startChain === undefined ? {} : { startChain: dialect.startChain }),
          ...(dialect.proxy === undefined
            ? {}
            : {
                relayerRpcUrl: async (nodeUrl: string) => {
                  proxy = await startRpcFaultProxy({ target: nodeUrl });
                  dialect.proxy!(proxy);
                  return proxy.url;
                },
              }),
        });
        await marketplaceRound(stack);
      } finally {
        await stack?.stop();
        await proxy?.close();
      }
    });
  }
});
