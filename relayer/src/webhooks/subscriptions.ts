import { randomBytes } from "node:crypto";
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../context.js";
import { orgs, webhooks } from "../db/schema/index.js";
import { ConflictError, NotFoundError, ValidationError } from "../errors.js";
import { newId } from "../shared/ids.js";
import { checkWebhookUrl } from "./url-policy.js";
import type { WebhookEventKind } from "../domain/webhook-event.js";
import type { CreatedWebhook, RotatedWebhookSecret, WebhookSummary } from "../domain/webhook.js";
import { DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS } from "../config.js";
import { appendAudit, type AuditOrigin } from "../audit/audit-writer.js";
import { AUDIT_ACTIONS } from "../domain/audit.js";
import { redactUrl } from "../shared/redact-url.js";

/** At most this many webhooks (not deleted) per organization. */
export const MAX_WEBHOOKS_PER_ORG = 10;

/**
 * A generated signing secret: `whsec_` + base64 of 32 random bytes (the Standard Webhooks
 * form). The whole string is the HMAC key of `X-Service-Signature`.
 */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

type WebhookRow = typeof webhooks.$inferSelect;

function summarize(row: WebhookRow): WebhookSummary {
  const graceRunning =
    row.previousSecretExpiresAt !== null && row.previousSecretExpiresAt.getTime() > Date.now();
  return {
    webhookId: row.id,
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    disabledReason: row.enabled ? null : row.disabledReason,
    disabledAt: row.enabled ? null : (row.disabledAt?.toISOString() ?? null),
    previousSecretExpiresAt: graceRunning ? row.previousSecretExpiresAt!.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The organization's webhooks (deleted ones excluded), oldest first. */
export async function listWebhooks(ctx: AppContext, orgId: string): Promise<WebhookSummary[]> {
  const rows = await ctx.database.db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.orgId, orgId), isNull(webhooks.deletedAt)))
    .orderBy(asc(webhooks.createdAt), asc(webhooks.id));
  return rows.map(summarize);
}

/**
 * Registers a webhook. The secret (given, or generated) is sealed by the key store with the
 * webhook id as context and is returned only in this response. The `webhook.created` audit row
 * (the URL as `redactUrl` shows it, the events; never the secret) commits with it.
 *
 * @throws ValidationError for a refused URL; ConflictError past `MAX_WEBHOOKS_PER_ORG`
 */
export async function createWebhook(
  ctx: AppContext,
  orgId: string,
  input: { url: string; events: WebhookEventKind[]; secret?: string | undefined },
  origin: AuditOrigin,
): Promise<CreatedWebhook> {
  const problem = checkWebhookUrl(input.url, ctx.config.webhookAllowLocal);
  if (problem !== undefined) throw new ValidationError(`Invalid field: url (${problem})`);
  const events = [...new Set(input.events)];
  const secret = input.secret ?? generateWebhookSecret();
  const webhookId = newId("wh");
  const encryptedSecret = ctx.keyStore.seal(secret, webhookId);
  const row = await ctx.database.db.transaction(async (tx) => {
    await tx.select({ id: orgs.id }).from(orgs).where(eq(orgs.id, orgId)).for("update");
    const [{ count } = { count: 0 }] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(webhooks)
      .where(and(eq(webhooks.orgId, orgId), isNull(webhooks.deletedAt)));
    if (count >= MAX_WEBHOOKS_PER_ORG) {
      throw new ConflictError(`Webhook limit reached (${MAX_WEBHOOKS_PER_ORG} per organization)`);
    }
    const inserted = await tx
      .insert(webhooks)
      .values({ id: webhookId, orgId, url: input.url, events, encryptedSecret })
      .returning();
    await appendAudit(tx, origin, {
      orgId,
      action: AUDIT_ACTIONS.webhookCreated,
      target: webhookId,
      changes: { url: redactUrl(input.url), events },
    });
    return inserted[0];
  });
  if (row === undefined) throw new Error("webhook insert returned no row");
  ctx.logger.info({ orgId, webhookId, events }, "webhook registered");
  return { ...summarize(row), secret };
}

/**
 * Deletes (soft: `deleted_at`) one of the organization's webhooks; deliveries stop. Another
 * organization's id, an unknown id and an already deleted webhook are all 404. The
 * `webhook.deleted` audit row commits with the deletion.
 *
 * @throws NotFoundError `Webhook not found`
 */
export async function deleteWebhook(
  ctx: AppContext,
  orgId: string,
  webhookId: string,
  origin: AuditOrigin,
): Promise<{ webhookId: string; deleted: true }> {
  await ctx.database.db.transaction(async (tx) => {
    const updated = await tx
      .update(webhooks)
      .set({ deletedAt: sql`now()`, enabled: false })
      .where(and(eq(webhooks.id, webhookId), eq(webhooks.orgId, orgId), isNull(webhooks.deletedAt)))
      .returning({ id: webhooks.id });
    if (updated.length === 0) throw new NotFoundError("Webhook not found");
    await appendAudit(tx, origin, {
      orgId,
      action: AUDIT_ACTIONS.webhookDeleted,
      target: webhookId,
      changes: { deleted: true },
    });
  });
  ctx.logger.info({ orgId, webhookId }, "webhook deleted");
  return { webhookId, deleted: true };
}

/**
 * Changes which event kinds one of the organization's webhooks receives (from the next released
 * event on). Kinds are validated by the route against `WEBHOOK_EVENT_KINDS`.
 *
 * @throws NotFoundError `Webhook not found` (another organization's, unknown or deleted)
 */
export async function updateWebhookEvents(
  ctx: AppContext,
  orgId: string,
  webhookId: string,
  events: readonly WebhookEventKind[],
  origin: AuditOrigin,
): Promise<WebhookSummary> {
  const row = await ctx.database.db.transaction(async (tx) => {
    const updated = await tx
      .update(webhooks)
      .set({ events: [...new Set(events)] })
      .where(and(eq(webhooks.id, webhookId), eq(webhooks.orgId, orgId), isNull(webhooks.deletedAt)))
      .returning();
    const changed = updated[0];
    if (changed === undefined) throw new NotFoundError("Webhook not found");
    await appendAudit(tx, origin, {
      orgId,
      action: AUDIT_ACTIONS.webhookUpdated,
      target: webhookId,
      changes: { events: changed.events },
    });
    return changed;
  });
  ctx.logger.info({ orgId, webhookId, events: row.events }, "webhook events changed");
  return summarize(row);
}

/**
 * Rotates a webhook's signing secret: the new one (given, or generated) signs every delivery
 * from now on, and the previous one still signs beside it (`webhook-signature`) for the grace
 * period (config.webhookSecretGraceSeconds, default 24 h), so receivers can switch without
 * dropping an event. A second rotation within the grace period drops the oldest secret. The
 * new secret is in this answer only; neither is logged.
 *
 * @throws NotFoundError `Webhook not found` (another organization's, unknown or deleted)
 */
export async function rotateWebhookSecret(
  ctx: AppContext,
  orgId: string,
  webhookId: string,
  input: { secret?: string | undefined },
  origin: AuditOrigin,
): Promise<RotatedWebhookSecret> {
  const secret = input.secret ?? generateWebhookSecret();
  const encryptedSecret = ctx.keyStore.seal(secret, webhookId);
  const graceSeconds = ctx.config.webhookSecretGraceSeconds ?? DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS;
  const row = await ctx.database.db.transaction(async (tx) => {
    const updated = await tx
      .update(webhooks)
      .set({
        previousEncryptedSecret: sql`${webhooks.encryptedSecret}`,
        previousSecretExpiresAt: sql`now() + make_interval(secs => ${graceSeconds}::int)`,
        encryptedSecret,
      })
      .where(and(eq(webhooks.id, webhookId), eq(webhooks.orgId, orgId), isNull(webhooks.deletedAt)))
      .returning({ id: webhooks.id, previousSecretExpiresAt: webhooks.previousSecretExpiresAt });
    const rotated = updated[0];
    if (rotated === undefined) throw new NotFoundError("Webhook not found");
    // Never the secret: the row says only that it changed and until when the old one signs.
    await appendAudit(tx, origin, {
      orgId,
      action: AUDIT_ACTIONS.webhookSecretRotated,
      target: webhookId,
      changes: { graceEndsAt: (rotated.previousSecretExpiresAt ?? new Date()).toISOString() },
    });
    return rotated;
  });
  ctx.logger.info({ orgId, webhookId }, "webhook secret rotated");
  return {
    webhookId,
    secret,
    previousSecretExpiresAt: (row.previousSecretExpiresAt ?? new Date()).toISOString(),
  };
}
