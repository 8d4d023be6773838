import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseEther, parseUnits, Wallet, type JsonRpcProvider } from "ethers";
import { replayRevertReason, type RevertedCall } from "../../../relayer/src/chain/revert-replay.js";
import { ANVIL_DEV_PRIVATE_KEY } from "../../../deploy/rpc.js";
import { startTestStack, type TestStack } from "../../support/stack.js";
import { FOREIGN_KEYS, marketAs, testProvider, tokenAs } from "../webhooks/chain-helpers.js";

/**
 * `replayRevertReason` against a real anvil and the deployed contracts: the reason of a
 * transaction that reverted on chain, from its call replayed on the parent block and, when that
 * names nothing, on the state after its own block (a race lost inside one block).
 */

const CID = { digest: `0x${"ab".repeat(32)}`, version: 1, codec: 0x0200, hashCode: 0x12 };
const NO_PASSWORD = `0x${"00".repeat(32)}`;

describe("replayRevertReason (anvil)", () => {
  let stack: TestStack;
  let provider: JsonRpcProvider;
  let seller: Wallet, buyer: Wallet, rival: Wallet;

  const rpc = <T>(method: string, params: unknown[] = []) =>
    provider.send(method, params) as Promise<T>;

  /** Sends `tx` with a fixed gas limit (so nothing is estimated) and returns its failed receipt. */
  const revertedOnChain = async (
    signer: Wallet,
    call: Omit<RevertedCall, "from" | "gas">,
    gas: bigint,
  ) => {
    const sent = await signer.sendTransaction({ ...call, gasLimit: gas });
    const receipt = await provider.waitForTransaction(sent.hash);
    assert.equal(receipt?.status, 0, "the transaction reverted on chain");
    return { call: { ...call, from: signer.address, gas }, blockNumber: receipt.blockNumber };
  };

  /** A fresh listing of the seller's, at 1 coin. */
  const listing = async (): Promise<bigint> => {
    const token = tokenAs(stack, seller);
    const tokenId = await token.getFunction("mint").staticCall("Bond", CID, NO_PASSWORD, {
      value: parseEther("0.1"),
    });
    await (
      await token.getFunction("mint")("Bond", CID, NO_PASSWORD, { value: parseEther("0.1") })
    ).wait();
    await (await token.getFunction("approve")(stack.ctx.contracts.marketplace, tokenId)).wait();
    const market = marketAs(stack, seller);
    const listingId = await market.getFunction("list").staticCall(tokenId, parseEther("1"), 30n);
    await (await market.getFunction("list")(tokenId, parseEther("1"), 30n)).wait();
    return listingId;
  };

  before(async () => {
    stack = await startTestStack({ logLevel: "warn" });
    provider = testProvider(stack.rpcUrl);
    // Three funded dev accounts no org uses (anvil's #0 is the operator, idle without workers).
    [seller, buyer, rival] = [FOREIGN_KEYS[0], FOREIGN_KEYS[2], ANVIL_DEV_PRIVATE_KEY].map(
      (key) => new Wallet(key, provider),
    ) as [Wallet, Wallet, Wallet];
  });
  after(async () => {
    provider?.destroy();
    await stack?.stop();
  });

  it("names the reason the parent block's state gives: a mint below the minimum stake", async () => {
    const data = tokenAs(stack, seller).interface.encodeFunctionData("mint", [
      "Bond",
      CID,
      NO_PASSWORD,
    ]);
    const { call, blockNumber } = await revertedOnChain(
      seller,
      { to: stack.ctx.contracts.assetToken, data, value: parseEther("0.01") },
      300_000n,
    );
    assert.equal(await replayRevertReason(stack.ctx.rpc, call, blockNumber), "Below min stake");
  });

  it("names Listing not active for a buy another buyer took ahead of it in the same block", async () => {
    const listingId = await listing();
    const market = marketAs(stack, buyer);
    const data = market.interface.encodeFunctionData("buy", [listingId, parseEther("1")]);
    await rpc("evm_setAutomine", [false]);
    let hashes: string[];
    try {
      const lost = await buyer.sendTransaction({
        to: stack.ctx.contracts.marketplace,
        data,
        value: parseEther("1"),
        gasLimit: 300_000n,
        maxPriorityFeePerGas: parseUnits("1", "gwei"),
        maxFeePerGas: parseUnits("100", "gwei"),
      });
      // A far higher fee: anvil orders the block by it, so the rival's buy goes first.
      const won = await marketAs(stack, rival).getFunction("buy")(listingId, parseEther("1"), {
        value: parseEther("1"),
        gasLimit: 300_000n,
        maxPriorityFeePerGas: parseUnits("1000", "gwei"),
        maxFeePerGas: parseUnits("2000", "gwei"),
      });
      hashes = [lost.hash, won.hash];
      await rpc("evm_mine");
    } finally {
      await rpc("evm_setAutomine", [true]);
    }
    const [lost, won] = await Promise.all(hashes.map((h) => provider.waitForTransaction(h)));
    assert.equal(won?.status, 1);
    assert.equal(lost?.status, 0);
    assert.equal(lost.blockNumber, won.blockNumber, "both in one block");
    const call = {
      from: buyer.address,
      to: stack.ctx.contracts.marketplace,
      data,
      value: parseEther("1"),
      gas: 300_000n,
    };
    assert.equal(
      await replayRevertReason(stack.ctx.rpc, call, lost.blockNumber),
      "Listing not active",
    );
  });

  it("answers execution reverted when no replay names a reason: out of gas", async () => {
    const data = tokenAs(stack, seller).interface.encodeFunctionData("mint", [
      "Bond",
      CID,
      NO_PASSWORD,
    ]);
    const { call, blockNumber } = await revertedOnChain(
      seller,
      { to: stack.ctx.contracts.assetToken, data, value: parseEther("0.1") },
      60_000n,
    );
    assert.equal(await replayRevertReason(stack.ctx.rpc, call, blockNumber), "execution reverted");
  });
});
