import { randomBytes } from "node:crypto";
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../context.js";
import { orgs, webhooks } from "../db/schema/index.js";
import { ConflictError, NotFoundError, ValidationError } from "../errors.js";
import { newId } from "./ids.js";
import { checkWebhookUrl } from "./webhook-url-policy.js";
import type { WebhookEventKind } from "../domain/webhook-event.js";
import type { CreatedWebhook, WebhookSummary } from "../domain/webhook.js";

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
  return {
    webhookId: row.id,
    url: row.url,
    events: row.events,
    enabled: row.enabled,
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
 * webhook id as context and is returned only in this response.
 *
 * @throws ValidationError for a refused URL; ConflictError past `MAX_WEBHOOKS_PER_ORG`
 */
export async function createWebhook(
  ctx: AppContext,
  orgId: string,
  input: { url: string; events: WebhookEventKind[]; secret?: string | undefined },
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
    return inserted[0];
  });
  if (row === undefined) throw new Error("webhook insert returned no row");
  ctx.logger.info({ orgId, webhookId, events }, "webhook registered");
  return { ...summarize(row), secret };
}

/**
 * Deletes (soft: `deleted_at`) one of the organization's webhooks; deliveries stop. Another
 * organization's id, an unknown id and an already deleted webhook are all 404.
 *
 * @throws NotFoundError `Webhook not found`
 */
export async function deleteWebhook(
  ctx: AppContext,
  orgId: string,
  webhookId: string,
): Promise<{ webhookId: string; deleted: true }> {
  const updated = await ctx.database.db
    .update(webhooks)
    .set({ deletedAt: sql`now()`, enabled: false })
    .where(and(eq(webhooks.id, webhookId), eq(webhooks.orgId, orgId), isNull(webhooks.deletedAt)))
    .returning({ id: webhooks.id });
  if (updated.length === 0) throw new NotFoundError("Webhook not found");
  ctx.logger.info({ orgId, webhookId }, "webhook deleted");
  return { webhookId, deleted: true };
}
