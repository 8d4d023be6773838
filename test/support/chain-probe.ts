import { JsonRpcProvider } from "ethers";
import type { AssetToken } from "../../typechain-types/AssetToken.js";
import { AssetToken__factory } from "../../typechain-types/factories/AssetToken__factory.js";

/** A receipt as the node returns it (the fields the tests read). */
export interface NodeReceipt {
  transactionHash: string;
  blockNumber: string;
  blockHash: string;
  status: string;
  logs: Array<{ address: string; topics: string[]; data: string }>;
}

/**
 * What the chain itself says, read straight from the node (never through the relayer or a fault
 * proxy): tokens through the TypeChain binding of AssetToken, nonces and receipts by plain
 * JSON-RPC (no client cache, so a value that just moved is seen moving).
 *
 * @example
 * const chain = new ChainProbe(stack.rpcUrl, stack.ctx.contracts.assetToken);
 * const before = await chain.totalSupply();
 * // ... writes ...
 * assert.equal((await chain.totalSupply()) - before, 20n);
 * chain.close();
 */
export class ChainProbe {
  readonly token: AssetToken;
  readonly #url: string;
  readonly #assetToken: string;
  readonly #provider: JsonRpcProvider;
  #id = 0;

  constructor(nodeUrl: string, assetToken: string) {
    this.#url = nodeUrl;
    this.#assetToken = assetToken.toLowerCase();
    this.#provider = new JsonRpcProvider(nodeUrl, 1236, { staticNetwork: true, cacheTimeout: -1 });
    this.token = AssetToken__factory.connect(assetToken, this.#provider);
  }

  /** One JSON-RPC call to the node; throws on an error answer. */
  async rpc<T>(method: string, params: unknown[] = []): Promise<T> {
    const res = await fetch(this.#url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++this.#id, method, params }),
    });
    const answer = (await res.json()) as { result?: T; error?: { message: string } };
    if (answer.error !== undefined) throw new Error(`${method}: ${answer.error.message}`);
    return answer.result as T;
  }

  async blockNumber(): Promise<number> {
    return Number(BigInt(await this.rpc<string>("eth_blockNumber")));
  }

  /** Live tokens (`AssetToken.totalSupply`). */
  totalSupply(): Promise<bigint> {
    return this.token.getFunction("totalSupply")();
  }

  balanceOf(address: string): Promise<bigint> {
    return this.token.getFunction("balanceOf")(address);
  }

  /** The owner of `tokenId`, or undefined when the token does not exist (the call reverts). */
  async ownerOf(tokenId: bigint | string): Promise<string | undefined> {
    try {
      return await this.token.getFunction("ownerOf")(tokenId);
    } catch {
      return undefined;
    }
  }

  /** The account's nonce at `latest` and at `pending`. */
  async nonces(address: string): Promise<{ latest: number; pending: number }> {
    const [latest, pending] = await Promise.all(
      ["latest", "pending"].map((tag) =>
        this.rpc<string>("eth_getTransactionCount", [address, tag]),
      ),
    );
    return { latest: Number(BigInt(latest!)), pending: Number(BigInt(pending!)) };
  }

  receipt(hash: string): Promise<NodeReceipt | null> {
    return this.rpc<NodeReceipt | null>("eth_getTransactionReceipt", [hash]);
  }

  /** Token ids minted (`AssetIssued`) by the transaction with this receipt. */
  mintedBy(receipt: NodeReceipt): bigint[] {
    return receipt.logs.flatMap((log) => {
      if (log.address.toLowerCase() !== this.#assetToken) return [];
      const parsed = this.token.interface.parseLog(log);
      return parsed?.name === "AssetIssued" ? [parsed.args.getValue("tokenId") as bigint] : [];
    });
  }

  close(): void {
    this.#provider.destroy();
  }
}
