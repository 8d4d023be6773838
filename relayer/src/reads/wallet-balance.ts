import { eq } from "drizzle-orm";
import type { AppContext } from "../context.js";
import { wallets } from "../db/schema/index.js";
import { NotFoundError } from "../errors.js";
import { formatCoin } from "../shared/coin-amount.js";
import { withRpc } from "../chain/rpc/rpc-errors.js";

/** Wallet balance object (`GET /api/enterprise/wallet` in /openapi.json; amount format in docs/api-decisions.md). */
export interface WalletBalance {
  walletAddress: string;
  /** Decimal native-coin amount without a trailing `.0`: "1.5", "0", "100". */
  balance: string;
  /** Integer amount in wei. */
  balanceWei: string;
  chain: number;
}

/** The address of an organization's custodial wallet. */
export async function walletAddressOf(ctx: AppContext, orgId: string): Promise<string> {
  const rows = await ctx.database.db
    .select({ address: wallets.address })
    .from(wallets)
    .where(eq(wallets.orgId, orgId))
    .limit(1);
  const row = rows[0];
  if (row === undefined) throw new NotFoundError("Wallet not found");
  return row.address;
}

/**
 * The organization's custodial wallet and its current (latest-block) balance from the node.
 *
 * @throws RpcUnavailableError when the chain node is unreachable
 */
export async function getWalletBalance(ctx: AppContext, orgId: string): Promise<WalletBalance> {
  const walletAddress = await walletAddressOf(ctx, orgId);
  const wei = await withRpc(() => ctx.provider.getBalance(walletAddress));
  return {
    walletAddress,
    balance: formatCoin(wei),
    balanceWei: wei.toString(),
    chain: ctx.config.chainId,
  };
}
