/**
 * How a node that is `lag` blocks behind the head answers, computed from an up-to-date node:
 * `rpc-fault-proxy.ts` in lagging mode rewrites each call with `lagView` before forwarding it and
 * filters the answer afterwards. Pure (the head is passed in), checked by
 * `test/unit/rpc-lag-view.test.ts`.
 *
 * With `view = head − lag`:
 * - `eth_blockNumber` answers `view`;
 * - `eth_getTransactionReceipt` answers null for a receipt in a block above `view`;
 * - `eth_getTransactionCount` at `latest`/`pending` answers the count at `view` (a lagging node's
 *   pool does not hold the transactions that reached the other node); at a block above `view`,
 *   geth's `header not found`;
 * - `eth_getBlockByNumber` and `eth_getBlockReceipts`: `latest`/`pending` mean `view`; a block
 *   above `view` answers null; `eth_getBlockByHash` answers null for a block above `view`;
 * - everything else is forwarded unchanged.
 */

/** What to do with one call on the lagging node. */
export type LagRewrite =
  | { answer: { result: unknown } | { error: { code: number; message: string } } }
  | { params: unknown[]; filter?: (result: unknown) => unknown };

const LATEST_TAGS = new Set(["latest", "pending"]);

/** `0x`-prefixed hex of a block number. */
export function toQuantity(n: number): string {
  return `0x${n.toString(16)}`;
}

/** The block number a tag or quantity names, given the lagging node's head (`view`). */
function blockOf(tag: unknown, view: number): number | "other" {
  if (typeof tag !== "string") return "other";
  if (LATEST_TAGS.has(tag)) return view;
  if (/^0x[0-9a-f]+$/i.test(tag)) return Number(BigInt(tag));
  return "other"; // earliest, safe, finalized, a block hash object: forwarded as they are
}

/** Null for an object whose `field` (a block number) lies above `view`. */
function hideAbove(field: string, view: number): (result: unknown) => unknown {
  return (result) => {
    if (typeof result !== "object" || result === null) return result;
    const value = (result as Record<string, unknown>)[field];
    if (typeof value !== "string") return result;
    return Number(BigInt(value)) > view ? null : result;
  };
}

/**
 * The rewrite of one call for a node whose head is `view` (the real head minus the lag).
 *
 * @example
 * lagView("eth_blockNumber", [], 95) // { answer: { result: "0x5f" } }
 * lagView("eth_getTransactionCount", [address, "latest"], 95) // { params: [address, "0x5f"] }
 */
export function lagView(method: string, params: readonly unknown[], view: number): LagRewrite {
  const rest = params.slice(1);
  switch (method) {
    case "eth_blockNumber":
      return { answer: { result: toQuantity(view) } };
    case "eth_getTransactionReceipt":
      return { params: [...params], filter: hideAbove("blockNumber", view) };
    case "eth_getBlockByHash":
      return { params: [...params], filter: hideAbove("number", view) };
    case "eth_getTransactionCount": {
      const block = blockOf(params[1], view);
      if (block === "other") return { params: [...params] };
      if (block > view) return { answer: { error: { code: -32000, message: "header not found" } } };
      return { params: [params[0], toQuantity(block)] };
    }
    case "eth_getBlockByNumber":
    case "eth_getBlockReceipts": {
      const block = blockOf(params[0], view);
      if (block === "other") return { params: [...params] };
      if (block > view) return { answer: { result: null } };
      return { params: [toQuantity(block), ...rest] };
    }
    default:
      return { params: [...params] };
  }
}
