import { getAddress } from "ethers";
import type { Database } from "../db/client.js";
import { weiToDecimal } from "../domain/amount.js";
import { NotFoundError } from "../errors.js";

/**
 * The default low-balance threshold: what 10 issuances cost at the spec's budget of about 0.15
 * native coin per asset (section 5: the 0.1 stake plus gas), 1.5 coin.
 */
export const DEFAULT_LOW_BALANCE_WEI = 15n * 10n ** 17n;

/** The threshold an organization may set: up to 10^12 coin (any real balance), at least 0. */
export const MAX_LOW_BALANCE_WEI = 10n ** 30n;

/** `GET /api/enterprise/wallet/alerts`: the threshold and what the indexer last saw. */
export interface WalletAlerts {
  walletAddress: string;
  /** Decimal native coin. */
  lowBalance: string;
  lowBalanceWei: string;
  /** True when the organization never set a threshold (the default applies). */
  isDefault: boolean;
  /**
   * `low`: the last balance the indexer read was below the threshold; `ok`: at or above it;
   * `unknown`: not read yet (a new wallet, a threshold just changed, or a reorg undid it).
   */
  state: "ok" | "low" | "unknown";
  /** The balance the indexer last recorded, and its block; null before the first reading. */
  balance: string | null;
  balanceWei: string | null;
  blockNumber: number | null;
}

/** The organization's low-balance alert settings and state. */
export async function getWalletAlerts(database: Database, orgId: string): Promise<WalletAlerts> {
  const { rows } = await database.pool.query<{
    address: string;
    low_balance_wei: string | null;
    low: boolean | null;
    recheck: boolean | null;
    observed_block: string | null;
    balance_wei: string | null;
    block_number: string | null;
  }>(
    `SELECT w.address, a.low_balance_wei::text, a.low, a.recheck, a.observed_block::text,
            b.balance_wei::text, b.block_number::text
       FROM wallets w
       LEFT JOIN wallet_alerts a ON a.org_id = w.org_id
       LEFT JOIN LATERAL (SELECT balance_wei, block_number FROM wallet_balances
                           WHERE org_id = w.org_id ORDER BY block_number DESC LIMIT 1) b ON true
      WHERE w.org_id = $1`,
    [orgId],
  );
  const row = rows[0];
  if (row === undefined) throw new NotFoundError("Wallet not found");
  const thresholdWei = row.low_balance_wei ?? DEFAULT_LOW_BALANCE_WEI.toString();
  const known = row.observed_block !== null && row.recheck === false;
  return {
    walletAddress: getAddress(row.address),
    lowBalance: weiToDecimal(thresholdWei),
    lowBalanceWei: thresholdWei,
    isDefault: row.low_balance_wei === null,
    state: known ? (row.low === true ? "low" : "ok") : "unknown",
    balance: row.balance_wei === null ? null : weiToDecimal(row.balance_wei),
    balanceWei: row.balance_wei,
    blockNumber: row.block_number === null ? null : Number(row.block_number),
  };
}

/**
 * Sets the organization's low-balance threshold (wei) and asks the indexer to read the wallet at
 * its next block, so a threshold now above (or below) the balance sends its event promptly.
 */
export async function setLowBalance(
  database: Database,
  orgId: string,
  thresholdWei: bigint,
): Promise<WalletAlerts> {
  await database.pool.query(
    `INSERT INTO wallet_alerts (org_id, low_balance_wei, recheck, updated_at)
     VALUES ($1, $2, true, now())
     ON CONFLICT (org_id) DO UPDATE
       SET low_balance_wei = EXCLUDED.low_balance_wei, recheck = true, updated_at = now()`,
    [orgId, thresholdWei.toString()],
  );
  return getWalletAlerts(database, orgId);
}
