import { JsonRpcProvider, parseEther, toBeHex, Wallet, ZeroHash } from "ethers";
import { fetch } from "undici";
import { AssetToken__factory } from "../../typechain-types/index.js";

/**
 * The chain's own limit: 100 fresh wallets funded with anvil_setBalance, every mint signed in
 * advance, all sent at once in JSON-RPC batches; mints per second = mints in the blocks that
 * carried them, divided by those blocks' span.
 */
export async function chainLimit(
  provider: JsonRpcProvider,
  rpcUrl: string,
  assetToken: string,
): Promise<number> {
  const wallets = Array.from({ length: 100 }, () => Wallet.createRandom());
  const perWallet = 30;
  const token = AssetToken__factory.createInterface();
  const cid = { digest: "0x" + "11".repeat(32), version: 1, codec: 0x0200, hashCode: 0x12 };
  const data = token.encodeFunctionData("mint", ["Bond", cid, ZeroHash]);
  await Promise.all(
    wallets.map((w) => provider.send("anvil_setBalance", [w.address, toBeHex(parseEther("1000"))])),
  );
  const gas = BigInt(
    (await provider.send("eth_estimateGas", [
      {
        from: wallets[0]!.address,
        to: assetToken,
        data,
        value: toBeHex(parseEther("0.1")),
      },
    ])) as string,
  );
  const fee = await provider.getFeeData();
  console.log(`  signing ${wallets.length * perWallet} mints in advance...`);
  const raw: string[] = [];
  for (let i = 0; i < perWallet; i++) {
    for (const w of wallets) {
      raw.push(
        await w.signTransaction({
          type: 2,
          chainId: 1236,
          nonce: i,
          to: assetToken,
          data,
          value: parseEther("0.1"),
          gasLimit: (gas * 125n) / 100n,
          maxFeePerGas: (fee.maxFeePerGas ?? 10n ** 10n) * 4n,
          maxPriorityFeePerGas: fee.maxPriorityFeePerGas ?? 10n ** 9n,
        }),
      );
    }
  }
  const start = await provider.getBlockNumber();
  for (let i = 0; i < raw.length; i += 200) {
    const batch = raw.slice(i, i + 200).map((tx, j) => ({
      jsonrpc: "2.0",
      id: i + j,
      method: "eth_sendRawTransaction",
      params: [tx],
    }));
    await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(batch),
    });
  }
  // Wait until every mint is in a block.
  const last = wallets.at(-1)!.address;
  while ((await provider.getTransactionCount(last, "latest")) < perWallet)
    await new Promise((r) => setTimeout(r, 250));
  const end = await provider.getBlockNumber();
  // Mints per full block × blocks per second: the partially filled first and last blocks of the
  // burst are left out, the blocks in between are what the chain sustains.
  const perBlock: number[] = [];
  for (let n = start + 1; n <= end; n++)
    perBlock.push((await provider.getBlock(n))?.transactions.length ?? 0);
  const sustained = perBlock.length > 2 ? perBlock.slice(1, -1) : perBlock;
  const mintsPerBlock = sustained.reduce((a, b) => a + b, 0) / Math.max(1, sustained.length);
  console.log(
    `  ${raw.length} mints in blocks ${start + 1}..${end}; per block: ${perBlock.join(", ")}`,
  );
  return mintsPerBlock; // 1 s blocks: mints per block = mints per second
}
