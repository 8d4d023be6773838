import { createHash } from "node:crypto";
import { getAddress, toQuantity } from "ethers";
import type pg from "pg";
import type { RpcClient } from "../chain/rpc/rpc-client.js";
import { weiToDecimal } from "../domain/amount.js";
import type { BlockEvent } from "./block-event.js";
import type { OutboxEvent } from "../webhooks/event-kinds.js";
import { insertOutboxEvents } from "../webhooks/outbox.js";
import { DEFAULT_LOW_BALANCE_WEI } from "../alerts/low-balance.js";

type BlockRead = Extract<BlockEvent, { type: "block" }>;

/** A wallet the watch reads at a block. */
interface Watched {
  orgId: string;
  address: string;
  thresholdWei: bigint;
  /** What the last observation said; undefined when the wallet was never observed. */
  low: boolean | undefined;
}

const ADDRESS = /^0x[0-9a-f]{40}$/;

/** Deterministic id of a balance event: one per org, kind and block hash. */
function balanceEventId(orgId: string, kind: string, blockHash: string): string {
  const digest = createHash("sha256").update(`${orgId}|${kind}|${blockHash}`).digest("hex");
  return `evt_${digest.slice(0, 32)}`;
}

/**
 * The indexer's view of each custodial wallet's native balance, and the low-balance alerts it
 * drives (docs/api-decisions.md "Wallet alerts"). Called by `IndexerStore.apply` on its transaction, once per
 * block event, after the event's logs are applied:
 *
 * - Which wallets to read: a balance only falls through the wallet's own transactions (the
 *   service signs every one), and it rises through sale proceeds, returned stakes and coins sent
 *   from outside. So the watch reads the wallets that had a write in flight or mined in the
 *   event's blocks (`transactions`, by receipt block or live state), the wallets named in the
 *   event's logs, the wallets below their threshold (to see a top-up from outside as soon as it
 *   lands), the wallets never observed, and those whose threshold just changed (`recheck`).
 *   Every other wallet's balance cannot have fallen, so it is not asked for. A wallet the dev
 *   faucet funded at registration is read from the faucet's block on (`watch_from_block`): at
 *   the allowlisting block before it the wallet held nothing, and a first reading of 0 there
 *   would send a `wallet.low_balance` the faucet's coin answers at once. The indexer meets those
 *   blocks after the registration committed whenever it runs behind the head.
 * - How: one JSON-RPC batch of `eth_getBalance(address, last block of the event)`, so a block
 *   costs one round trip whatever the number of wallets, and nothing is polled per request.
 * - What it writes, in one statement for all the wallets read: a `wallet_balances` row when the
 *   balance or the low state changed (the history chart), the `wallet_alerts` state, and on a
 *   crossing a `wallet.low_balance` or
 *   `wallet.funded` outbox event of that block, released like every chain event after the
 *   configured confirmations. The first observation of a wallet is a crossing only when it is
 *   below the threshold (`wallet.low_balance`); at or above it, it sets the state silently.
 *
 * A wallet that dips below and recovers inside one event's range (catch-up reads up to 2000
 * blocks at once) is not seen; at the head an event is one block. A node that cannot answer a
 * balance at an old block (a pruned full node) leaves that wallet for the next event.
 */
export class BalanceWatch {
  constructor(private readonly rpc: RpcClient) {}

  /** Reads the balances of the wallets the block event may have changed; see the class doc. */
  async onBlock(client: pg.ClientBase, event: BlockRead): Promise<void> {
    const first = event.headers[0]?.number ?? event.last.number;
    const touched = new Set<string>();
    for (const log of event.logs) {
      for (const value of Object.values(log.args as Record<string, unknown>)) {
        if (typeof value === "string" && ADDRESS.test(value)) touched.add(value);
      }
    }
    const { rows } = await client.query<{
      org_id: string;
      address: string;
      low_balance_wei: string | null;
      low: boolean | null;
      observed_block: string | null;
    }>(
      `SELECT w.org_id, lower(w.address) AS address, a.low_balance_wei::text, a.low,
              a.observed_block::text
         FROM wallets w LEFT JOIN wallet_alerts a ON a.org_id = w.org_id
        WHERE (a.watch_from_block IS NULL OR a.watch_from_block <= $3)
          AND (a.org_id IS NULL OR a.low OR a.recheck OR a.observed_block IS NULL
           OR lower(w.address) = ANY($1::text[])
           OR EXISTS (SELECT 1 FROM transactions t
                       WHERE t.wallet_id = w.id AND t.state IN ('sent', 'mined'))
           OR EXISTS (SELECT 1 FROM transactions t
                       WHERE t.wallet_id = w.id AND t.receipt IS NOT NULL
                         AND (t.receipt->>'blockNumber')::bigint BETWEEN $2 AND $3))`,
      [[...touched], first, event.last.number],
    );
    const watched: Watched[] = rows
      .filter((r) => r.observed_block === null || Number(r.observed_block) < event.last.number)
      .map((r) => ({
        orgId: r.org_id,
        address: r.address,
        thresholdWei:
          r.low_balance_wei === null ? DEFAULT_LOW_BALANCE_WEI : BigInt(r.low_balance_wei),
        low: r.observed_block === null ? undefined : (r.low ?? undefined),
      }));
    if (watched.length === 0) return;
    const block = toQuantity(event.last.number);
    const answers = await this.rpc.batch(
      watched.map((w) => ({ method: "eth_getBalance", params: [w.address, block] })),
    );
    const events: OutboxEvent[] = [];
    // The observations, one per org (the last wins, as when they were written one by one).
    const observed = new Map<string, { balanceWei: bigint; low: boolean }>();
    for (const [i, wallet] of watched.entries()) {
      const answer = answers[i];
      if (typeof answer !== "string") continue; // this node cannot say: the next event will
      const balanceWei = BigInt(answer);
      const low = balanceWei < wallet.thresholdWei;
      observed.set(wallet.orgId, { balanceWei, low });
      // A first reading below the threshold alerts (a new wallet not yet funded, a threshold
      // set before the indexer first read the wallet); a first reading at or above it is no
      // crossing and stays silent (docs/api-decisions.md "Wallet alerts").
      if (wallet.low === undefined ? !low : wallet.low === low) continue;
      const kind = low ? "wallet.low_balance" : "wallet.funded";
      events.push({
        id: balanceEventId(wallet.orgId, kind, event.last.hash),
        orgId: wallet.orgId,
        kind,
        blockNumber: event.last.number,
        blockHash: event.last.hash,
        txHash: null,
        logIndex: null,
        payload: {
          event: kind,
          timestamp: event.last.timestamp * 1000,
          orgId: wallet.orgId,
          txHash: null,
          blockNumber: event.last.number,
          data: {
            walletAddress: getAddress(wallet.address),
            balance: weiToDecimal(balanceWei.toString()),
            balanceWei: balanceWei.toString(),
            threshold: weiToDecimal(wallet.thresholdWei.toString()),
            thresholdWei: wallet.thresholdWei.toString(),
          },
        },
      });
    }
    if (observed.size === 0) return;
    // Every wallet's observation in one statement: a history row where the balance or the low
    // state changed since the org's newest row, and the alert state of each.
    await client.query(
      `WITH obs AS (
         SELECT * FROM unnest($1::text[], $2::numeric[], $3::bool[]) AS o(org_id, balance_wei, low)),
       history AS (
         INSERT INTO wallet_balances (org_id, block_number, block_hash, at, balance_wei, low)
         SELECT o.org_id, $4, $5, $6, o.balance_wei, o.low FROM obs o
          WHERE NOT EXISTS (
            SELECT 1 FROM (SELECT b.balance_wei, b.low FROM wallet_balances b WHERE b.org_id = o.org_id
                            ORDER BY b.block_number DESC LIMIT 1) prev
             WHERE prev.balance_wei = o.balance_wei AND prev.low = o.low)
         ON CONFLICT (org_id, block_number) DO UPDATE
           SET block_hash = EXCLUDED.block_hash, at = EXCLUDED.at,
               balance_wei = EXCLUDED.balance_wei, low = EXCLUDED.low)
       INSERT INTO wallet_alerts (org_id, low, observed_block, recheck, updated_at)
       SELECT o.org_id, o.low, $4, false, now() FROM obs o
       ON CONFLICT (org_id) DO UPDATE
         SET low = EXCLUDED.low, observed_block = EXCLUDED.observed_block, recheck = false,
             updated_at = now()`,
      [
        [...observed.keys()],
        [...observed.values()].map((o) => o.balanceWei.toString()),
        [...observed.values()].map((o) => o.low),
        event.last.number,
        event.last.hash,
        new Date(event.last.timestamp * 1000),
      ],
    );
    await insertOutboxEvents(client, events);
  }

  /**
   * A reorg back to `ancestor`: forgets the balances read above it and sets each affected
   * wallet's state back to its newest remaining observation (or to "never observed", which the
   * next block reads again as a first reading). Their unreleased events go with the other
   * pending events of the vanished blocks (`indexer/rollback.ts`).
   */
  async onReorg(client: pg.ClientBase, ancestor: number): Promise<void> {
    await client.query(
      `WITH gone AS (DELETE FROM wallet_balances WHERE block_number > $1 RETURNING org_id),
            affected AS (SELECT DISTINCT org_id FROM gone
                         UNION SELECT org_id FROM wallet_alerts WHERE observed_block > $1)
       UPDATE wallet_alerts a
          SET low = coalesce(last.low, false), observed_block = last.block_number,
              updated_at = now()
         FROM affected
         LEFT JOIN LATERAL (
           SELECT b.low, b.block_number FROM wallet_balances b
            WHERE b.org_id = affected.org_id AND b.block_number <= $1
            ORDER BY b.block_number DESC LIMIT 1) last ON true
        WHERE a.org_id = affected.org_id`,
      [ancestor],
    );
  }
}
