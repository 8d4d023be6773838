import { getAddress } from "ethers";
import type { AppContext } from "../context.js";
import { weiToDecimal } from "../domain/amount.js";
import { cursorCodec, positiveInteger } from "../shared/cursor.js";
import { getWalletBalance } from "./wallet-balance.js";

/** One point of the balance line: the balance from `at` (the block's time) on. */
export interface BalancePoint {
  at: string;
  blockNumber: number | null;
  balance: string;
  balanceWei: string;
}

/** `GET /api/enterprise/wallet/history`. */
export interface WalletHistory {
  walletAddress: string;
  /** The current balance (the node's latest block). */
  balance: string;
  balanceWei: string;
  since: string;
  until: string;
  /**
   * Oldest first. The first point carries the balance at `since` when one was recorded before
   * it; on the newest page the last point is the current balance at `until` (no block).
   */
  points: BalancePoint[];
  /** True when the window held more points than `limit` (only the newest are returned). */
  truncated: boolean;
  /** Cursor of the next (older) page of the same window; null on the last page. */
  nextCursor: string | null;
}

/** Window and page of a history read. */
export interface WalletHistoryQuery {
  from: Date;
  to: Date | undefined;
  limit: number;
  cursor: string | undefined;
}

/** Cursor of an older page: base64url of `{"b":<block number>}`, points strictly below it. */
const historyCursor = cursorCodec({ b: positiveInteger });

/**
 * The wallet's balance over a time window, as the indexer recorded it (`indexer/balance-watch.ts`:
 * one point per block where the balance changed, read with `eth_getBalance` at that block, so
 * coins received from outside show at the block the indexer next read the wallet, and a point
 * is never more than a block behind the writes that moved it). Newest `limit` points per page,
 * returned oldest first; `nextCursor` pages back in the same window. Only the caller's wallet.
 *
 * @throws RpcUnavailableError when the node cannot give the current balance
 */
export async function walletHistory(
  ctx: AppContext,
  orgId: string,
  query: WalletHistoryQuery,
): Promise<WalletHistory> {
  const before = query.cursor === undefined ? undefined : historyCursor.decode(query.cursor).b;
  const current = await getWalletBalance(ctx, orgId);
  const until = query.to ?? new Date();
  const { rows } = await ctx.database.pool.query<{
    at: Date;
    block_number: string;
    balance_wei: string;
  }>(
    `SELECT b.at, b.block_number::text AS block_number, b.balance_wei::text AS balance_wei
       FROM wallet_balances b
      WHERE b.org_id = $1 AND b.at >= $2 AND b.at <= $3
        AND ($4::bigint IS NULL OR b.block_number < $4)
      ORDER BY b.block_number DESC LIMIT $5`,
    [orgId, query.from, until, before ?? null, query.limit + 1],
  );
  const truncated = rows.length > query.limit;
  const page = rows.slice(0, query.limit).reverse();
  const point = (at: Date, block: number | null, wei: string): BalancePoint => ({
    at: at.toISOString(),
    blockNumber: block,
    balance: weiToDecimal(wei),
    balanceWei: wei,
  });
  const points = page.map((r) => point(r.at, Number(r.block_number), r.balance_wei));
  if (!truncated) {
    // The balance the window starts with: the newest reading before it, drawn at its left edge.
    const { rows: prior } = await ctx.database.pool.query<{ balance_wei: string }>(
      `SELECT b.balance_wei::text AS balance_wei FROM wallet_balances b
        WHERE b.org_id = $1 AND b.at < $2 ORDER BY b.block_number DESC LIMIT 1`,
      [orgId, query.from],
    );
    const start = prior[0];
    if (start !== undefined) points.unshift(point(query.from, null, start.balance_wei));
  }
  if (before === undefined && query.to === undefined)
    points.push(point(until, null, current.balanceWei));
  const oldest = page[0];
  return {
    walletAddress: getAddress(current.walletAddress),
    balance: current.balance,
    balanceWei: current.balanceWei,
    since: query.from.toISOString(),
    until: until.toISOString(),
    points,
    truncated,
    nextCursor:
      truncated && oldest !== undefined
        ? historyCursor.encode({ b: Number(oldest.block_number) })
        : null,
  };
}
