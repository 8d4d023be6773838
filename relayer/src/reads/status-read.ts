import { describeFeeModel, type FeeModel } from "../engine/fee-oracle.js";
import type { AppContext } from "../context.js";

/** `GET /api/v1/status` body. */
export interface ServiceStatus {
  status: "ok" | "degraded";
  chainId: number;
  latestBlock: number | null;
  indexedBlock: number | null;
  lag: number | null;
  /** Seconds between blocks over the last (up to) 100 indexed blocks; null before two are known. */
  averageBlockTime: number | null;
  contracts: {
    assetTypeRegistry: string;
    assetToken: string;
    marketplace: string;
    deployBlock: number;
  };
  rpc: { ok: boolean; latencyMs: number | null };
  /**
   * How the engine prices transactions on this node (detected from it: docs/transactions.md
   * "Fees"); null while it could not be detected (node unreachable).
   */
  feeModel: {
    type: 0 | 2;
    source: FeeModel["source"];
    description: string;
    detectedAt: string;
  } | null;
  database: { ok: boolean; latencyMs: number | null };
  queue: { ok: boolean; pendingDeliveries: number | null; overdueDeliveries: number | null };
  /** The market pause as indexed (`market_state`); null while the database cannot be read. */
  market: { paused: boolean; reason: string | null; changedAt: string | null } | null;
}

async function timed<T>(
  fn: () => Promise<T>,
): Promise<{ value: T | undefined; ms: number | null }> {
  const started = performance.now();
  try {
    const value = await fn();
    return { value, ms: Math.round(performance.now() - started) };
  } catch {
    return { value: undefined, ms: null };
  }
}

/**
 * Chain, indexer, database and queue health, the fee model the engine uses, and whether the
 * market is paused. Never throws: a failing dependency shows as
 * `ok: false` and the overall status `degraded`. The queue counts deliveries waiting and those
 * more than a minute past their due time.
 */
export async function readStatus(ctx: AppContext): Promise<ServiceStatus> {
  const [rpc, fees, db] = await Promise.all([
    timed(async () => Number(BigInt(await ctx.rpc.call<string>("eth_blockNumber", [])))),
    // Detected once (and again after a failure); a status read does not re-probe the node.
    ctx.engine.fees.detect().catch(() => undefined),
    timed(async () => {
      const { rows } = await ctx.database.pool.query<{
        indexed: string | null;
        avg: number | null;
        pending: number;
        overdue: number;
        paused: boolean | null;
        reason: string | null;
        changed_at: Date | null;
      }>(
        `SELECT (SELECT block_number FROM indexer_cursor WHERE id = 'main') AS indexed,
                (SELECT (max(timestamp) - min(timestamp))::float8 / NULLIF(max(number) - min(number), 0)
                   FROM (SELECT number, timestamp FROM indexed_blocks ORDER BY number DESC LIMIT 100) b) AS avg,
                (SELECT count(*)::int FROM webhook_deliveries WHERE status IN ('pending', 'retrying')) AS pending,
                (SELECT count(*)::int FROM webhook_deliveries WHERE status IN ('pending', 'retrying')
                   AND next_attempt_at < now() - interval '1 minute') AS overdue,
                m.paused, m.reason, m.changed_at
           FROM (SELECT 1) one LEFT JOIN market_state m ON m.id = 'market'`,
      );
      return rows[0];
    }),
  ]);
  const latestBlock = rpc.value ?? null;
  const indexedBlock = db.value?.indexed == null ? null : Number(db.value.indexed);
  const dbOk = db.value !== undefined;
  const queueOk = dbOk && (db.value?.overdue ?? 0) === 0;
  return {
    status: rpc.value !== undefined && dbOk && queueOk ? "ok" : "degraded",
    chainId: ctx.config.chainId,
    latestBlock,
    indexedBlock,
    lag:
      latestBlock !== null && indexedBlock !== null
        ? Math.max(0, latestBlock - indexedBlock)
        : null,
    averageBlockTime: db.value?.avg == null ? null : Math.round(db.value.avg * 1000) / 1000,
    contracts: {
      assetTypeRegistry: ctx.contracts.assetTypeRegistry,
      assetToken: ctx.contracts.assetToken,
      marketplace: ctx.contracts.marketplace,
      deployBlock: ctx.contracts.deployBlock,
    },
    rpc: { ok: rpc.value !== undefined, latencyMs: rpc.ms },
    feeModel:
      fees === undefined
        ? null
        : {
            type: fees.type,
            source: fees.source,
            description: describeFeeModel(fees),
            detectedAt: fees.detectedAt.toISOString(),
          },
    database: { ok: dbOk, latencyMs: db.ms },
    queue: {
      ok: queueOk,
      pendingDeliveries: db.value?.pending ?? null,
      overdueDeliveries: db.value?.overdue ?? null,
    },
    market:
      db.value === undefined
        ? null
        : {
            paused: db.value.paused === true,
            reason: db.value.reason,
            changedAt: db.value.changed_at?.toISOString() ?? null,
          },
  };
}
