import type { PgBoss } from "pg-boss";
import type { Logger } from "pino";
import { inTransaction, type Database } from "../db/client.js";
import type { KeyStore } from "../wallets/key-store.js";
import { nextRetryDelayMs, parseRetryAfterMs } from "./backoff.js";
import { enqueueDeliveries, type DeliveryJobData } from "./delivery-queue.js";
import type { DeliveryOptions } from "./delivery-options.js";
import type { WebhookPayload } from "../domain/webhook-event.js";
import { payloadBody } from "./payload-body.js";
import { DeliveryNetworkError, postJson, type PostResult } from "./post-json.js";
import { DestinationRefusedError, resolveDestination } from "./resolve-destination.js";
import { signatureHeaders } from "./sign.js";
import {
  heldMessage,
  isCircuitOpen,
  recordAnswer,
  recordNetworkFailure,
} from "./circuit-breaker.js";
import { disableWebhook } from "./disable-webhook.js";

/** What `deliver` needs. */
export interface DeliverDeps {
  database: Database;
  keyStore: KeyStore;
  boss: PgBoss;
  logger: Logger;
  options: DeliveryOptions;
}

interface DeliveryRow {
  id: string;
  webhook_id: string;
  org_id: string;
  event_id: string;
  status: string;
  attempts: number;
  created_at: Date;
  payload: WebhookPayload;
  url: string;
  encrypted_secret: string;
  enabled: boolean;
  deleted_at: Date | null;
  previous_encrypted_secret: string | null;
  previous_secret_expires_at: Date | null;
  circuit_open_until: Date | null;
  circuit_reason: string | null;
}

/** How one attempt ended. */
type Outcome =
  | { kind: "delivered" }
  | { kind: "retry"; retryAfterMs: number | undefined; error: string }
  | { kind: "gone" }
  | { kind: "failed"; error: string };

function classify(result: PostResult | undefined, error: unknown): Outcome {
  if (result === undefined) {
    if (error instanceof DestinationRefusedError) return { kind: "failed", error: error.message };
    return {
      kind: "retry",
      retryAfterMs: undefined,
      error: error instanceof Error ? error.message : String(error),
    };
  }
  if (result.status >= 200 && result.status < 300) return { kind: "delivered" };
  if (result.status === 410) return { kind: "gone" };
  if (result.status === 429 || result.status >= 500) {
    return {
      kind: "retry",
      retryAfterMs: parseRetryAfterMs(result.retryAfter),
      error: `HTTP ${result.status}`,
    };
  }
  return { kind: "failed", error: `HTTP ${result.status}` };
}

/** Rejects with a network error when `promise` takes longer than `ms` (counts toward the attempt's deadline). */
function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DeliveryNetworkError(`${what} timed out after ${ms} ms`, ms)),
      ms,
    );
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** The reason recorded beside a hold that this attempt's failure caused. */
function circuitReasonOf(error: string): string {
  return `circuit opened after repeated timeouts or connection failures (last: ${error})`;
}

/**
 * Holds a delivery of a webhook whose circuit is open: no request; the delivery's log says why
 * and until when (`lastError`, `nextAttemptAt`), and its job comes back when the hold ends.
 */
async function hold(
  deps: DeliverDeps,
  row: DeliveryRow,
  openUntil: Date,
  reason: string | null,
  manual: boolean,
): Promise<void> {
  await inTransaction(deps.database, async (client) => {
    await client.query(
      `UPDATE webhook_deliveries SET status = 'retrying', next_attempt_at = $2, last_error = $3, updated_at = now()
       WHERE id = $1`,
      [row.id, openUntil, heldMessage(reason, openUntil)],
    );
    await enqueueDeliveries(deps.boss, [{ id: row.id, orgId: row.org_id }], {
      client,
      startAfterSeconds: Math.max(1, (openUntil.getTime() - Date.now()) / 1000),
      manual,
    });
  });
  deps.logger.debug(
    { deliveryId: row.id, webhookId: row.webhook_id, openUntil },
    "webhook delivery held",
  );
}

/**
 * Runs one delivery attempt: signs the payload, resolves and checks the destination, POSTs with
 * the deadline, logs the attempt and moves the delivery on (delivered; retry later with backoff
 * on network errors, timeouts, 5xx and 429; webhook disabled on 410 or after failing
 * continuously for `disableAfterMs`, with a `webhook.disabled` notice to the organization's
 * other webhooks; failed on other 4xx, refused destinations, or when the retry window is over).
 * The next attempt's job is enqueued in the same transaction. While the webhook's circuit is
 * open (`circuit-breaker.ts`) the delivery is held without a request. During a secret rotation's
 * grace period the previous secret signs too (`webhook-signature`).
 */
export async function deliver(deps: DeliverDeps, job: DeliveryJobData): Promise<void> {
  const { database, options } = deps;
  const { rows } = await database.pool.query<DeliveryRow>(
    `SELECT d.id, d.webhook_id, d.org_id, d.event_id, d.status, d.attempts, d.created_at, e.payload, w.url,
            w.encrypted_secret, w.enabled, w.deleted_at, w.previous_encrypted_secret, w.previous_secret_expires_at,
            w.circuit_open_until, w.circuit_reason
     FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id JOIN webhooks w ON w.id = d.webhook_id
     WHERE d.id = $1`,
    [job.deliveryId],
  );
  const row = rows[0];
  if (row === undefined) return;
  if (
    !job.manual &&
    (row.status === "delivered" || row.status === "failed" || row.status === "cancelled")
  )
    return;
  if (!row.enabled || row.deleted_at !== null) {
    await database.pool.query(
      `UPDATE webhook_deliveries SET status = 'cancelled', last_error = 'Webhook disabled', updated_at = now() WHERE id = $1`,
      [row.id],
    );
    return;
  }

  if (row.circuit_open_until !== null && isCircuitOpen({ openUntil: row.circuit_open_until })) {
    await hold(deps, row, row.circuit_open_until, row.circuit_reason, job.manual === true);
    return;
  }

  const secret = deps.keyStore.open(row.encrypted_secret, row.webhook_id);
  const previous =
    row.previous_encrypted_secret !== null &&
    row.previous_secret_expires_at !== null &&
    row.previous_secret_expires_at.getTime() > Date.now()
      ? [deps.keyStore.open(row.previous_encrypted_secret, row.webhook_id)]
      : [];
  const body = payloadBody(row.payload);
  const headers = {
    "user-agent": "rwa-relayer-webhooks/1",
    "x-service-event": row.payload.event,
    "x-service-delivery": row.id,
    ...signatureHeaders(secret, row.event_id, body, Date.now(), previous),
  };
  const startedAt = new Date();
  const url = new URL(row.url);
  let result: PostResult | undefined;
  let error: unknown;
  try {
    const started = Date.now();
    const destination = await withDeadline(
      resolveDestination(url, options.allowLocal),
      options.timeoutMs,
      "DNS lookup",
    );
    result = await postJson(
      url,
      destination,
      headers,
      body,
      Math.max(1, options.timeoutMs - (Date.now() - started)),
    );
  } catch (caught) {
    error = caught;
  }
  const latencyMs =
    result?.latencyMs ?? (error instanceof DeliveryNetworkError ? error.latencyMs : 0);
  const outcome = classify(result, error);
  const attemptNo = row.attempts + 1;

  await inTransaction(database, async (client) => {
    await client.query(
      `INSERT INTO webhook_attempts (delivery_id, attempt_no, started_at, status_code, latency_ms, response_snippet, error)
       VALUES ($1,$2,$3,$4,$5,$6,$7)`,
      [
        row.id,
        attemptNo,
        startedAt,
        result?.status ?? null,
        latencyMs,
        result?.snippet ?? null,
        outcome.kind === "delivered" ? null : "error" in outcome ? outcome.error : "HTTP 410",
      ],
    );
    const set = async (
      status: string,
      extra: { next?: Date | null; error?: string | null; delivered?: boolean } = {},
    ) =>
      client.query(
        `UPDATE webhook_deliveries SET status = $2, attempts = $3, next_attempt_at = $4, last_status_code = $5,
           last_error = $6, delivered_at = CASE WHEN $7 THEN now() ELSE delivered_at END, updated_at = now()
         WHERE id = $1`,
        [
          row.id,
          status,
          attemptNo,
          extra.next ?? null,
          result?.status ?? null,
          extra.error ?? null,
          extra.delivered === true,
        ],
      );
    const disable = (reason: string) => disableWebhook(client, deps.boss, row.webhook_id, reason);
    // Circuit breaker: any HTTP answer closes it; timeouts and connection failures count toward
    // opening it (a refused destination is the SSRF guard, not the receiver's health).
    let heldUntil: Date | null = null;
    if (result !== undefined) await recordAnswer(client, row.webhook_id);
    else if (error instanceof DeliveryNetworkError && outcome.kind === "retry")
      heldUntil = await recordNetworkFailure(client, row.webhook_id, outcome.error, options);

    switch (outcome.kind) {
      case "delivered":
        await set("delivered", { delivered: true });
        await client.query(
          `UPDATE webhooks SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL`,
          [row.webhook_id],
        );
        return;
      case "gone":
        await set("failed", { error: "HTTP 410" });
        await disable("Receiver answered 410 Gone");
        deps.logger.warn({ webhookId: row.webhook_id }, "webhook disabled: receiver answered 410");
        return;
      case "failed":
      case "retry": {
        const { rows: failing } = await client.query<{ failing_ms: number }>(
          `UPDATE webhooks SET failing_since = COALESCE(failing_since, now()) WHERE id = $1
           RETURNING (extract(epoch FROM now() - failing_since) * 1000)::float8 AS failing_ms`,
          [row.webhook_id],
        );
        if ((failing[0]?.failing_ms ?? 0) > options.disableAfterMs) {
          await set("failed", { error: outcome.error });
          await disable("Deliveries failed continuously for more than 3 days");
          deps.logger.warn({ webhookId: row.webhook_id }, "webhook disabled: failing for too long");
          return;
        }
        if (outcome.kind === "failed") {
          await set("failed", { error: outcome.error });
          return;
        }
        const delayMs = Math.max(
          nextRetryDelayMs(
            attemptNo,
            options.backoffBaseMs,
            options.backoffMaxMs,
            outcome.retryAfterMs,
          ),
          heldUntil === null ? 0 : heldUntil.getTime() - Date.now(),
        );
        if (Date.now() + delayMs - row.created_at.getTime() > options.retryWindowMs) {
          await set("failed", { error: `${outcome.error}; gave up after ${attemptNo} attempts` });
          return;
        }
        const retryError =
          heldUntil === null
            ? outcome.error
            : `${outcome.error}; ${heldMessage(circuitReasonOf(outcome.error), heldUntil)}`;
        await set("retrying", { next: new Date(Date.now() + delayMs), error: retryError });
        await enqueueDeliveries(deps.boss, [{ id: row.id, orgId: row.org_id }], {
          client,
          startAfterSeconds: delayMs / 1000,
        });
        return;
      }
    }
  });
  deps.logger.debug(
    { deliveryId: row.id, attemptNo, outcome: outcome.kind, status: result?.status, latencyMs },
    "webhook attempt",
  );
}
