import type pg from "pg";
import type { PgBoss } from "pg-boss";
import { onClient } from "../webhooks/delivery-queue.js";

/** The pg-boss queue of metadata pins: one job per document CID (`{ cid }`). */
export const PIN_QUEUE = "metadata-pin";

/** Job payload. */
export interface PinJobData {
  cid: string;
}

/**
 * Retries of a failed pin (an unreachable kubo node, a pinning service answering 5xx): 5 s,
 * 10 s, 20 s ... capped at 10 min between attempts, for about a day. The mint never waits for it;
 * `metadataPinned` in the asset's read record says where it stands.
 */
export const PIN_RETRY = {
  retryLimit: 150,
  retryDelay: 5,
  retryBackoff: true,
  retryDelayMax: 600,
  expireInSeconds: 60,
  deleteAfterSeconds: 24 * 3600,
} as const;

/** Creates the pin queue (or brings an existing one up to date). Safe in every process. */
export async function createPinQueue(boss: PgBoss): Promise<void> {
  await boss.createQueue(PIN_QUEUE, { notify: true, ...PIN_RETRY });
  await boss.updateQueue(PIN_QUEUE, PIN_RETRY);
}

/**
 * Enqueues one pin per CID, on `client` when given (so the jobs commit with the rows that bound
 * the documents). A CID with a job still waiting is not queued twice (singleton key).
 */
export async function enqueuePins(
  boss: PgBoss,
  cids: readonly string[],
  client?: pg.ClientBase,
): Promise<void> {
  const unique = [...new Set(cids)];
  if (unique.length === 0) return;
  await boss.insert(
    PIN_QUEUE,
    unique.map((cid) => ({ data: { cid } satisfies PinJobData, singletonKey: cid })),
    client === undefined ? undefined : { db: onClient(client) },
  );
}

/** The CIDs of the documents of `tokenIds` that are not pinned yet (read on `client`). */
export async function unpinnedCids(
  client: pg.ClientBase,
  tokenIds: readonly string[],
): Promise<string[]> {
  if (tokenIds.length === 0) return [];
  const { rows } = await client.query<{ cid: string }>(
    `SELECT DISTINCT cid FROM token_metadata WHERE token_id = ANY($1::numeric[]) AND pinned_at IS NULL`,
    [tokenIds],
  );
  return rows.map((r) => r.cid);
}
