import { MAX_WEBHOOKS_PER_ORG } from "../../webhooks/subscriptions.js";
import { notFoundErrors } from "../openapi/operation-metadata.js";
import { z } from "zod";
import { createdWebhook, rotatedWebhookSecret, webhookSummary } from "../../domain/webhook.js";
import { MAX_WEBHOOK_URL_LENGTH } from "../../webhooks/url-policy.js";
import { WEBHOOK_EVENT_KINDS } from "../../domain/webhook-event.js";
import {
  createWebhook,
  deleteWebhook,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhookEvents,
} from "../../webhooks/subscriptions.js";
import { defineRoute } from "../route-definition.js";
import { apiKeyErrors, errorBody } from "./schemas.js";

const webhookIdSchema = z.string().min(1, "must not be empty").max(64, "too long");

/** `GET /api/enterprise/webhooks` response. */
export const listWebhooksResponse = z.object({ webhooks: z.array(webhookSummary) });

/** The event filter of a webhook: known kinds only, at least one. */
const eventKinds = z
  .array(
    z.enum(WEBHOOK_EVENT_KINDS, {
      error: `must be one of ${WEBHOOK_EVENT_KINDS.join(", ")}`,
    }),
  )
  .min(1, "must be a non-empty array of event kinds");

/** A signing secret chosen by the organization. */
const secretField = z
  .string()
  .min(16, "must be 16 to 256 characters")
  .max(256, "must be 16 to 256 characters");

/** `POST /api/enterprise/webhooks` body. */
export const createWebhookRequest = z.strictObject({
  url: z
    .string()
    .max(MAX_WEBHOOK_URL_LENGTH, `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`),
  events: eventKinds,
  secret: secretField.optional(),
});

/** `PATCH /api/enterprise/webhooks/:webhookId` body: the new event filter. */
export const updateWebhookRequest = z.strictObject({ events: eventKinds });

/** `POST /api/enterprise/webhooks/:webhookId/rotate-secret` body (optional). */
export const rotateSecretRequest = z.strictObject({ secret: secretField.optional() });

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
  handler: async ({ ctx, principal, body, origin }) =>
    createWebhook(ctx, principal!.orgId, body, origin),
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
  handler: async ({ ctx, principal, body, origin }) =>
    deleteWebhook(ctx, principal!.orgId, body.webhookId, origin),
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
  handler: async ({ ctx, principal, params, origin }) =>
    deleteWebhook(ctx, principal!.orgId, params.webhookId, origin),
});

const webhookPathParams = z.object({ webhookId: webhookIdSchema });

/** `PATCH /api/enterprise/webhooks/:webhookId` (scope webhooks): edit the event filter. */
export const updateWebhookRoute = defineRoute({
  method: "patch",
  path: "/api/enterprise/webhooks/:webhookId",
  summary: "Change a webhook's event filter",
  docs: {
    operationId: "updateWebhook",
    tag: "Webhooks",
    description: "Replaces the event kinds the webhook receives, from the next released event on.",
    errors: notFoundErrors("Webhook"),
  },
  auth: "apiKey",
  scopes: ["webhooks"],
  request: { params: webhookPathParams, body: updateWebhookRequest },
  responses: { 200: webhookSummary, ...webhookErrors },
  handler: async ({ ctx, principal, params, body, origin }) =>
    updateWebhookEvents(ctx, principal!.orgId, params.webhookId, body.events, origin),
});

/** `POST /api/enterprise/webhooks/:webhookId/rotate-secret` (scope webhooks). */
export const rotateWebhookSecretRoute = defineRoute({
  method: "post",
  path: "/api/enterprise/webhooks/:webhookId/rotate-secret",
  summary: "Rotate a webhook's signing secret",
  docs: {
    operationId: "rotateWebhookSecret",
    tag: "Webhooks",
    description:
      "The new secret (given, or generated) is in this answer only. Until `previousSecretExpiresAt` " +
      "(WEBHOOK_SECRET_GRACE_SECONDS, default 24 h) `webhook-signature` carries a signature with " +
      "each secret, space-separated; `X-Service-Signature` uses the new one.",
    errors: notFoundErrors("Webhook"),
  },
  auth: "apiKey",
  scopes: ["webhooks"],
  request: { params: webhookPathParams, body: rotateSecretRequest },
  responses: { 200: rotatedWebhookSecret, ...webhookErrors },
  handler: async ({ ctx, principal, params, body, origin }) =>
    rotateWebhookSecret(ctx, principal!.orgId, params.webhookId, body, origin),
});
