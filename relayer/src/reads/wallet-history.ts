import type { AppContext } from "../context.js";
import { NotFoundError } from "../errors.js";
import { getWalletBalance } from "../services/wallet-balance.js";
import { weiToDecimal } from "../domain/amount.js";

/** One point of the balance line: the balance right after `at`. */
export interface BalancePoint {
  at: string;
  balance: string;
  balanceWei: string;
}

/** `GET /api/enterprise/wallet/history`. */
export interface WalletHistory {
  walletAddress: string;
  balance: string;
  balanceWei: string;
  since: string;
  /** Oldest first; the first is the balance at `since`, the last is the current balance. */
  points: BalancePoint[];
  /** True when the window held more changes than are returned (only the newest are). */
  truncated: boolean;
}

const MAX_CHANGES = 1000;
const ZERO = "0x0000000000000000000000000000000000000000";

/**
 * The wallet's balance over the last `days` days, rebuilt without archive-node queries: from the
 * current balance (one `eth_getBalance`), walking back through the changes this service records,
 * which are each write's gas fee and the value it paid (the `transactions` table's receipts; a
 * buy's payment counts from the `sales` row, since excess is refunded), each sale's proceeds
 * (`sales`) and each redemption's returned stake (`transfers` to the zero address). Coins
 * received from outside (the dev faucet, a manual top-up) show as part of the balance before the
 * next recorded change. Never another organization's data: everything is keyed by the org.
 *
 * @throws RpcUnavailableError when the node cannot give the current balance
 */
export async function walletHistory(
  ctx: AppContext,
  orgId: string,
  days: number,
): Promise<WalletHistory> {
  const current = await getWalletBalance(ctx, orgId);
  const { rows: walletRows } = await ctx.database.pool.query<{ created_at: Date }>(
    "SELECT created_at FROM wallets WHERE org_id = $1",
    [orgId],
  );
  const wallet = walletRows[0];
  if (wallet === undefined) throw new NotFoundError("Wallet not found");
  const windowStart = new Date(Date.now() - days * 86_400_000);
  const since = wallet.created_at > windowStart ? wallet.created_at : windowStart;
  const { rows } = await ctx.database.pool.query<{ at: Date; delta: string }>(
    `WITH w AS (SELECT lower(address) AS addr FROM wallets WHERE org_id = $1)
     SELECT at, delta::text FROM (
       SELECT coalesce(t.mined_at, t.confirmed_at, t.failed_at, t.updated_at) AS at,
              -((t.receipt->>'gasUsed')::numeric * (t.receipt->>'effectiveGasPrice')::numeric
                + CASE WHEN (t.receipt->>'status')::int = 1 AND t.kind <> 'buy'
                       THEN t.value::numeric ELSE 0 END) AS delta
         FROM transactions t WHERE t.org_id = $1 AND t.receipt IS NOT NULL
       UNION ALL
       SELECT s.sold_at, -s.price_wei FROM sales s, w WHERE s.buyer = w.addr
       UNION ALL
       SELECT s.sold_at, s.price_wei FROM sales s, w WHERE s.seller = w.addr
       UNION ALL
       SELECT tr.transferred_at, a.stake_wei
         FROM transfers tr JOIN assets a ON a.token_id = tr.token_id, w
        WHERE tr.from_address = w.addr AND tr.to_address = '${ZERO}'
     ) changes
     WHERE at >= $2 AND delta <> 0
     ORDER BY at DESC
     LIMIT ${MAX_CHANGES + 1}`,
    [orgId, since],
  );
  const truncated = rows.length > MAX_CHANGES;
  const changes = rows.slice(0, MAX_CHANGES);
  const point = (at: Date, wei: bigint): BalancePoint => ({
    at: at.toISOString(),
    balance: weiToDecimal(wei.toString()),
    balanceWei: wei.toString(),
  });
  let wei = BigInt(current.balanceWei);
  const newestFirst: BalancePoint[] = [point(new Date(), wei)];
  for (const change of changes) {
    newestFirst.push(point(change.at, wei));
    wei -= BigInt(change.delta);
  }
  const oldest = changes.at(-1);
  newestFirst.push(point(truncated && oldest !== undefined ? oldest.at : since, wei));
  // Each change's point carries the balance after it; the one before sits just before it.
  const points = newestFirst.reverse();
  return {
    walletAddress: current.walletAddress,
    balance: current.balance,
    balanceWei: current.balanceWei,
    since: since.toISOString(),
    points,
    truncated,
  };
}
