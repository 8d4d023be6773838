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
 * Sends one JSON-RPC request with plain fetch and a timeout (no provider, no retry loop).
 *
 * @throws RpcUnreachableError when the endpoint does not answer or answers with an error
 */
export async function rpcRequest<T>(
  rpcUrl: string,
  method: string,
  params: unknown[] = [],
  timeoutMs = 3_000,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (cause) {
    throw new RpcUnreachableError(rpcUrl, cause);
  }
  if (!response.ok) {
    throw new RpcUnreachableError(rpcUrl, new Error(`HTTP ${response.status} for ${method}`));
  }
  const body = (await response.json().catch(() => null)) as {
    result?: T;
    error?: { message?: string };
  } | null;
  if (body === null || body.error !== undefined || !("result" in body)) {
    const reason = body?.error?.message ?? "malformed JSON-RPC response";
    throw new RpcUnreachableError(rpcUrl, new Error(`${method}: ${reason}`));
  }
  return body.result as T;
}

/** What a node says about itself. */
export interface NodeInfo {
  chainId: number;
  clientVersion: string;
  isAnvil: boolean;
}

/** Asks a node for its chain id and client version. */
export async function probeNode(rpcUrl: string, timeoutMs = 3_000): Promise<NodeInfo> {
  const chainIdHex = await rpcRequest<string>(rpcUrl, "eth_chainId", [], timeoutMs);
  const clientVersion = await rpcRequest<string>(rpcUrl, "web3_clientVersion", [], timeoutMs).catch(
    () => "",
  );
  return {
    chainId: Number(BigInt(chainIdHex)),
    clientVersion,
    isAnvil: clientVersion.toLowerCase().startsWith("anvil"),
  };
}

/** Whether the node is a local anvil on chain 1236 (where the dev key may be used). */
export function isLocalAnvil(info: NodeInfo): boolean {
  return info.isAnvil && info.chainId === LOCAL_CHAIN_ID;
}
