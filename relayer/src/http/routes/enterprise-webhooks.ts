import { MAX_WEBHOOKS_PER_ORG } from "../../services/webhooks.js";
import { notFoundErrors } from "../../openapi/operation-metadata.js";
import { z } from "zod";
import { createdWebhook, webhookSummary } from "../../domain/webhook.js";
import { MAX_WEBHOOK_URL_LENGTH } from "../../services/webhook-url-policy.js";
import { WEBHOOK_EVENT_KINDS } from "../../domain/webhook-event.js";
import { createWebhook, deleteWebhook, listWebhooks } from "../../services/webhooks.js";
import { defineRoute } from "../route-definition.js";
import { apiKeyErrors, errorBody } from "./schemas.js";

const webhookIdSchema = z.string().min(1, "must not be empty").max(64, "too long");

/** `GET /api/enterprise/webhooks` response. */
export const listWebhooksResponse = z.object({ webhooks: z.array(webhookSummary) });

/** `POST /api/enterprise/webhooks` body. */
export const createWebhookRequest = z.strictObject({
  url: z
    .string()
    .max(MAX_WEBHOOK_URL_LENGTH, `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`),
  events: z
    .array(
      z.enum(WEBHOOK_EVENT_KINDS, {
        error: `must be one of ${WEBHOOK_EVENT_KINDS.join(", ")}`,
      }),
    )
    .min(1, "must be a non-empty array of event kinds"),
  secret: z
    .string()
    .min(16, "must be 16 to 256 characters")
    .max(256, "must be 16 to 256 characters")
    .optional(),
});

/** `POST /api/enterprise/webhooks` response: the secret is shown only here. */
export const createWebhookResponse = createdWebhook;

/** `DELETE /api/enterprise/webhooks` body. */
export const deleteWebhookRequest = z.strictObject({ webhookId: webhookIdSchema });

/** Deletion result. */
export const deleteWebhookResponse = z.object({ webhookId: z.string(), deleted: z.literal(true) });

const webhookErrors = { ...apiKeyErrors, 404: errorBody, 409: errorBody } as const;

/** `GET /api/enterprise/webhooks` (scope webhooks or read). */
export const listWebhooksRoute = defineRoute({
  method: "get",
  path: "/api/enterprise/webhooks",
  summary: "List webhooks",
  docs: { operationId: "listWebhooks", tag: "Webhooks" },
  auth: "apiKey",
  scopes: ["webhooks", "read"],
  request: {},
  responses: { 200: listWebhooksResponse, ...apiKeyErrors },
  handler: async ({ ctx, principal }) => ({ webhooks: await listWebhooks(ctx, principal!.orgId) }),
});

/** `POST /api/enterprise/webhooks` (scope webhooks): register a webhook. */
export const createWebhookRoute = defineRoute({
  method: "post",
  path: "/api/enterprise/webhooks",
  summary: "Register a webhook",
  docs: {
    operationId: "createWebhook",
    tag: "Webhooks",
    description:
      "The secret is in this answer only. Payloads are under `webhooks` in this document.",
    errors: { 409: [`Webhook limit reached (${MAX_WEBHOOKS_PER_ORG} per organization)`] },
  },
  auth: "apiKey",
  scopes: ["webhooks"],
  request: { body: createWebhookRequest },
  responses: { 200: createWebhookResponse, ...webhookErrors },
  handler: async ({ ctx, principal, body }) => createWebhook(ctx, principal!.orgId, body),
});

/** `DELETE /api/enterprise/webhooks` with `{ webhookId }` (scope webhooks). */
export const deleteWebhookRoute = defineRoute({
  method: "delete",
  path: "/api/enterprise/webhooks",
  summary: "Remove a webhook",
  docs: {
    operationId: "deleteWebhook",
    tag: "Webhooks",
    errors: notFoundErrors("Webhook"),
  },
  auth: "apiKey",
  scopes: ["webhooks"],
  request: { body: deleteWebhookRequest },
  responses: { 200: deleteWebhookResponse, ...webhookErrors },
  handler: async ({ ctx, principal, body }) => deleteWebhook(ctx, principal!.orgId, body.webhookId),
});

/** `DELETE /api/enterprise/webhooks/:webhookId` (scope webhooks): same as the body form. */
export const deleteWebhookByPathRoute = defineRoute({
  method: "delete",
  path: "/api/enterprise/webhooks/:webhookId",
  summary: "Remove a webhook (id in the path)",
  docs: {
    operationId: "deleteWebhookById",
    tag: "Webhooks",
    errors: notFoundErrors("Webhook"),
  },
  auth: "apiKey",
  scopes: ["webhooks"],
  request: { params: z.object({ webhookId: webhookIdSchema }) },
  responses: { 200: deleteWebhookResponse, ...webhookErrors },
  handler: async ({ ctx, principal, params }) =>
    deleteWebhook(ctx, principal!.orgId, params.webhookId),
});
