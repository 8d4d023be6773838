import { notFoundErrors } from "../../openapi/operation-metadata.js";
import { z } from "zod";
import { deliveryLog } from "../../domain/webhook.js";
import { listDeliveries, redeliver, sendTestEvent } from "../../webhooks/deliveries-service.js";
import { defineRoute, type AnyRouteDefinition } from "../route-definition.js";
import { apiKeyErrors, errorBody } from "./schemas.js";

const idSchema = z.string().min(1, "must not be empty").max(64, "too long");

/** Path params with the webhook id. */
export const webhookParams = z.object({ webhookId: idSchema });

/** Path params with the webhook and delivery ids. */
export const deliveryParams = z.object({ webhookId: idSchema, deliveryId: idSchema });

/** `GET .../deliveries` query. */
export const deliveriesQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^\d{1,3}$/, "must be an integer from 1 to 100")
    .transform(Number)
    .refine((n) => n >= 1 && n <= 100, "must be an integer from 1 to 100")
    .optional(),
});

/** `GET .../deliveries` response. */
export const deliveryLogResponse = deliveryLog;

const errors = { ...apiKeyErrors, 404: errorBody } as const;
const redeliverErrors = { ...errors, 409: errorBody } as const;

/** `GET /api/enterprise/webhooks/:webhookId/deliveries` (scope webhooks or read). */
export const listDeliveriesRoute = defineRoute({
  method: "get",
  path: "/api/enterprise/webhooks/:webhookId/deliveries",
  summary: "Delivery log of a webhook",
  docs: {
    operationId: "getWebhookDeliveries",
    tag: "Webhooks",
    errors: notFoundErrors("Webhook"),
  },
  auth: "apiKey",
  scopes: ["webhooks", "read"],
  request: { params: webhookParams, query: deliveriesQuery },
  responses: { 200: deliveryLogResponse, ...errors },
  handler: async ({ ctx, principal, params, query }) =>
    listDeliveries(ctx.database, principal!.orgId, params.webhookId, query.limit ?? 50),
});

/** `POST /api/enterprise/webhooks/:webhookId/deliveries/:deliveryId/redeliver` (scope webhooks). */
export const redeliverRoute = defineRoute({
  method: "post",
  path: "/api/enterprise/webhooks/:webhookId/deliveries/:deliveryId/redeliver",
  summary: "Send a delivery again",
  docs: {
    operationId: "redeliverWebhook",
    tag: "Webhooks",
    errors: { 404: ["Webhook not found", "Delivery not found"] },
  },
  auth: "apiKey",
  scopes: ["webhooks"],
  request: { params: deliveryParams },
  responses: {
    202: z.object({ deliveryId: z.string(), queued: z.literal(true) }),
    ...redeliverErrors,
  },
  handler: async ({ ctx, principal, params }) =>
    redeliver(ctx.database, ctx.deliveries, principal!.orgId, params.webhookId, params.deliveryId),
});

/** `POST /api/enterprise/webhooks/:webhookId/test` (scope webhooks): a `webhook.test` ping. */
export const testWebhookRoute = defineRoute({
  method: "post",
  path: "/api/enterprise/webhooks/:webhookId/test",
  summary: "Send a webhook.test event",
  docs: {
    operationId: "testWebhook",
    tag: "Webhooks",
    errors: notFoundErrors("Webhook"),
  },
  auth: "apiKey",
  scopes: ["webhooks"],
  request: { params: webhookParams },
  responses: {
    202: z.object({ deliveryId: z.string(), eventId: z.string(), queued: z.literal(true) }),
    ...errors,
  },
  handler: async ({ ctx, principal, params }) =>
    sendTestEvent(ctx.database, ctx.deliveries, principal!.orgId, params.webhookId),
});

/** Delivery log, redelivery and test ping for registered webhooks. */
export const WEBHOOK_DELIVERY_ROUTES: readonly AnyRouteDefinition[] = [
  listDeliveriesRoute,
  redeliverRoute,
  testWebhookRoute,
];
