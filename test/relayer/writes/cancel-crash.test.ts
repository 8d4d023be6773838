import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { JsonRpcProvider } from "ethers";
import { AssetToken__factory } from "../../../typechain-types/factories/AssetToken__factory.js";
import type { TxAttempt } from "../../../relayer/src/engine/tx-lifecycle.js";
import { assetBody } from "./helpers.js";
import { useChildRelayers } from "./relayer-child-process.js";

/**
 * A relayer killed while it cancels a sent write (docs/transactions.md "Cancelling a sent
 * write"): the self-transfer was recorded, its broadcast lost with the process. The next
 * process re-broadcasts the recorded bytes; exactly one of the two transactions of that nonce is
 * mined and the row says which. Real anvil (1 s blocks, mining paused during the crash),
 * PostgreSQL, relayers as child processes.
 */
describe("a crash while cancelling a sent write (relayer child processes, anvil)", () => {
  const relayers = useChildRelayers();

  const call = (baseUrl: string, apiKey: string, path: string, body?: unknown) =>
    fetch(`${baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKey, prefer: "respond-async" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const waitFor = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
    for (let i = 0; i < 600; i++) {
      const value = await probe();
      if (value !== undefined) return value;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`never: ${what}`);
  };

  it("SIGKILL after the self-transfer is recorded: the next process sends it, one of the two is mined, and the row names it", async () => {
    const { stack } = relayers;
    const provider = new JsonRpcProvider(stack.rpcUrl, 1236, { staticNetwork: true });
    const rpc = <T>(method: string, params: unknown[] = []) =>
      provider.send(method, params) as Promise<T>;
    const token = AssetToken__factory.connect(stack.ctx.contracts.assetToken, provider);
    const org = await stack.registerOrg();
    const row = async (id: string) =>
      (
        await stack.database.pool.query<{
          state: string;
          attempts: TxAttempt[];
          receipt: { hash: string } | null;
        }>("SELECT state, attempts, receipt FROM transactions WHERE id = $1", [id])
      ).rows[0]!;
    try {
      const startNonce = await provider.getTransactionCount(org.walletAddress, "latest");
      const tokensBefore = await token.balanceOf(org.walletAddress);
      await rpc("evm_setIntervalMining", [0]);
      const first = await relayers.start();
      const issued = await call(
        first.baseUrl,
        org.apiKey,
        "/api/v1/write/issue-asset",
        assetBody(),
      );
      assert.equal(issued.status, 202);
      const id = ((await issued.json()) as { transactionId: string }).transactionId;
      await waitFor("the write is sent", async () =>
        (await row(id)).state === "sent" ? true : undefined,
      );
      const cancelled = await call(first.baseUrl, org.apiKey, `/api/v1/transactions/${id}/cancel`);
      assert.equal(cancelled.status, 202, await cancelled.text());
      const cancelAttempt = await waitFor("the self-transfer is recorded", async () =>
        (await row(id)).attempts.find((a) => a.cancel === true),
      );
      first.child.kill("SIGKILL");
      // Whatever reached the pool is lost with the process: only the recorded bytes remain.
      await rpc("anvil_dropTransaction", [cancelAttempt.hash]).catch(() => undefined);
      const original = (await row(id)).attempts[0]!;
      assert.notEqual(original.hash, cancelAttempt.hash);

      await relayers.start();
      await rpc("evm_setIntervalMining", [1]);
      const final = await waitFor("the write is final", async () => {
        const now = await row(id);
        return now.state === "sent" || now.state === "mined" ? undefined : now;
      });
      const receipts = await Promise.all(
        [original.hash, cancelAttempt.hash].map((h) => provider.getTransactionReceipt(h)),
      );
      const mined = receipts.filter((r) => r !== null);
      assert.equal(mined.length, 1, "exactly one transaction of the nonce was mined");
      assert.equal(final.receipt?.hash, mined[0]!.hash, "the row names the one mined");
      assert.equal(
        final.state,
        mined[0]!.hash === cancelAttempt.hash ? "cancelled" : "confirmed",
        "and ends as it says",
      );
      assert.equal(await provider.getTransactionCount(org.walletAddress, "latest"), startNonce + 1);
      const minted = (await token.balanceOf(org.walletAddress)) - tokensBefore;
      assert.equal(minted, final.state === "cancelled" ? 0n : 1n, "minted only if confirmed");
    } finally {
      await rpc("evm_setIntervalMining", [1]).catch(() => undefined);
      provider.destroy();
    }
  });
});
