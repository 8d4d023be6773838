import {
  JsonRpcApiProvider,
  Network,
  type JsonRpcError,
  type JsonRpcPayload,
  type JsonRpcResult,
} from "ethers";
import type { RpcClient, RpcRequest } from "./rpc-client.js";

/**
 * An ethers provider whose transport is the relayer's `RpcClient`, so ethers' object model
 * (TypeChain contracts, the operator `Wallet`) shares its failover, timeouts and metrics instead
 * of opening a second connection. The network is static (`chainId`: no detection loop when the
 * node is down) and the request cache is off (`cacheTimeout: -1`: two pending-nonce reads in a
 * row must both ask the node).
 *
 * @example
 * const provider = new RpcClientProvider(rpc, 1236);
 * const registry = AssetTypeRegistry__factory.connect(address, provider);
 */
export class RpcClientProvider extends JsonRpcApiProvider {
  readonly #rpc: RpcClient;

  constructor(rpc: RpcClient, chainId: number, options: { pollingIntervalMs?: number } = {}) {
    super(Network.from(chainId), {
      staticNetwork: true,
      cacheTimeout: -1,
      batchStallTime: 2,
      ...(options.pollingIntervalMs === undefined
        ? {}
        : { pollingInterval: options.pollingIntervalMs }),
    });
    this.#rpc = rpc;
  }

  /** The client every request of this provider goes through. */
  get rpc(): RpcClient {
    return this.#rpc;
  }

  override async _send(
    payload: JsonRpcPayload | JsonRpcPayload[],
  ): Promise<Array<JsonRpcResult | JsonRpcError>> {
    const requests = (Array.isArray(payload) ? payload : [payload]) as RpcRequest[];
    return (await this.#rpc.exchange(requests)) as Array<JsonRpcResult | JsonRpcError>;
  }
}
