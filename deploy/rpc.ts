import { RpcClient } from "../relayer/src/chain/rpc/rpc-client.js";
import { RpcUnreachableError } from "./errors.js";

/** The chain id of the project's private chain and of the local anvil. */
export const LOCAL_CHAIN_ID = 1236;

/**
 * Private key of anvil's first default development account (public knowledge: anvil prints it at
 * start). Used only when the node is a local anvil on chain 1236.
 */
export const ANVIL_DEV_PRIVATE_KEY =
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

/**
 * Sends one JSON-RPC request through the relayer's one client (`relayer/src/chain/rpc/rpc-client.ts`:
 * timeout, failover across a comma-separated `rpcUrl`) and states any failure in the deploy
 * vocabulary: the node did not answer, or answered with an error, is `RpcUnreachableError`.
 *
 * @param rpcUrl one URL or a comma-separated list (RPC_URL)
 * @param timeoutMs per round trip and endpoint
 * @throws RpcUnreachableError when no endpoint answers with a result
 * @example
 * const code = await rpcRequest<string>(rpcUrl, "eth_getCode", [address, "latest"]);
 */
export async function rpcRequest<T>(
  rpcUrl: string,
  method: string,
  params: unknown[] = [],
  timeoutMs = 3_000,
): Promise<T> {
  return requestThrough(new RpcClient(rpcUrl, { timeoutMs }), rpcUrl, method, params);
}

async function requestThrough<T>(
  rpc: RpcClient,
  rpcUrl: string,
  method: string,
  params: unknown[] = [],
): Promise<T> {
  try {
    return await rpc.call<T>(method, params);
  } catch (cause) {
    throw new RpcUnreachableError(rpcUrl, cause);
  }
}

/** What a node says about itself. */
export interface NodeInfo {
  chainId: number;
  clientVersion: string;
  isAnvil: boolean;
}

/**
 * Asks a node for its chain id and client version.
 *
 * @throws RpcUnreachableError when the node does not answer `eth_chainId` with a quantity
 */
export async function probeNode(rpcUrl: string, timeoutMs = 3_000): Promise<NodeInfo> {
  const rpc = new RpcClient(rpcUrl, { timeoutMs });
  const chainIdHex = await requestThrough<unknown>(rpc, rpcUrl, "eth_chainId");
  if (typeof chainIdHex !== "string" || !/^0x[0-9a-fA-F]+$/.test(chainIdHex)) {
    throw new RpcUnreachableError(rpcUrl, new Error("eth_chainId: malformed JSON-RPC response"));
  }
  const clientVersion = await requestThrough<unknown>(rpc, rpcUrl, "web3_clientVersion").catch(
    () => "",
  );
  const version = typeof clientVersion === "string" ? clientVersion : "";
  return {
    chainId: Number(BigInt(chainIdHex)),
    clientVersion: version,
    isAnvil: version.toLowerCase().startsWith("anvil"),
  };
}

/** Whether the node is a local anvil on chain 1236 (where the dev key may be used). */
export function isLocalAnvil(info: NodeInfo): boolean {
  return info.isAnvil && info.chainId === LOCAL_CHAIN_ID;
}
