import { notFoundErrors } from "../openapi/operation-metadata.js";
import { z } from "zod";
import { deliveryLog } from "../../domain/webhook.js";
import {
  MANUAL_LIMIT_MESSAGE,
  MAX_REPLAY_DAYS,
  MAX_REPLAY_EVENTS,
  listDeliveries,
  redeliver,
  replayEvents,
  sendTestEvent,
} from "../../webhooks/deliveries-service.js";
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

/** An ISO 8601 date-time with its offset (`2026-11-25T12:00:00Z`) naming a real instant. */
const instant = z
  .string()
  .max(40, "must be an ISO 8601 date-time such as 2026-11-25T12:00:00Z")
  .regex(
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/,
    "must be an ISO 8601 date-time such as 2026-11-25T12:00:00Z",
  )
  .refine((text) => {
    const date = new Date(text);
    // 2026-02-31 parses as 3 March: keep the calendar date the text names.
    return !Number.isNaN(date.getTime()) && sameCalendarDay(text, date);
  }, "must be an ISO 8601 date-time such as 2026-11-25T12:00:00Z")
  .transform((text) => new Date(text));

function sameCalendarDay(text: string, date: Date): boolean {
  const offset = /(Z|([+-])(\d{2}):(\d{2}))$/.exec(text);
  const minutes =
    offset === null || offset[1] === "Z"
      ? 0
      : (offset[2] === "-" ? -1 : 1) * (Number(offset[3]) * 60 + Number(offset[4]));
  const local = new Date(date.getTime() + minutes * 60_000).toISOString().slice(0, 10);
  return local === text.slice(0, 10);
}

/** `POST .../replay` body. */
export const replayRequest = z.strictObject({ from: instant, to: instant });

/** `POST .../replay` answer. */
export const replayResponse = z.object({
  webhookId: z.string(),
  from: z.string(),
  to: z.string(),
  queued: z.number().int().describe("deliveries queued (one per event of the range)"),
});

const errors = { ...apiKeyErrors, 404: errorBody } as const;
const redeliverErrors = { ...errors, 409: errorBody } as const;
const manualErrors = { 429: [MANUAL_LIMIT_MESSAGE] };

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
    errors: { 404: ["Webhook not found", "Delivery not found"], ...manualErrors },
  },
  auth: "apiKey",
  scopes: ["webhooks"],
  request: { params: deliveryParams },
  responses: {
    202: z.object({ deliveryId: z.string(), queued: z.literal(true) }),
    ...redeliverErrors,
  },
  handler: async ({ ctx, principal, params }) =>
    redeliver(ctx, principal!.orgId, params.webhookId, params.deliveryId),
});

/** `POST /api/enterprise/webhooks/:webhookId/test` (scope webhooks): a `webhook.test` ping. */
export const testWebhookRoute = defineRoute({
  method: "post",
  path: "/api/enterprise/webhooks/:webhookId/test",
  summary: "Send a webhook.test event",
  docs: {
    operationId: "testWebhook",
    tag: "Webhooks",
    errors: { ...notFoundErrors("Webhook"), ...manualErrors },
  },
  auth: "apiKey",
  scopes: ["webhooks"],
  request: { params: webhookParams },
  responses: {
    202: z.object({ deliveryId: z.string(), eventId: z.string(), queued: z.literal(true) }),
    ...errors,
  },
  handler: async ({ ctx, principal, params }) =>
    sendTestEvent(ctx, principal!.orgId, params.webhookId),
});

/** `POST /api/enterprise/webhooks/:webhookId/replay` (scope webhooks): send a time range again. */
export const replayWebhookRoute = defineRoute({
  method: "post",
  path: "/api/enterprise/webhooks/:webhookId/replay",
  summary: "Replay the events of a time range",
  docs: {
    operationId: "replayWebhook",
    tag: "Webhooks",
    description:
      `Queues a delivery of every event of the organization recorded from \`from\` to \`to\` ` +
      `(inclusive, at most ${MAX_REPLAY_DAYS} days, at most ${MAX_REPLAY_EVENTS} events) whose kind ` +
      "the webhook subscribes to, with the same `webhook-id` as the first time.",
    errors: {
      400: [
        "Invalid range: from must be before to",
        `Invalid range: at most ${MAX_REPLAY_DAYS} days`,
        `Replay range holds more than ${MAX_REPLAY_EVENTS} events; narrow it`,
      ],
      404: ["Webhook not found"],
      409: ["Webhook is disabled: Receiver answered 410 Gone"],
      ...manualErrors,
    },
  },
  auth: "apiKey",
  scopes: ["webhooks"],
  request: { params: webhookParams, body: replayRequest },
  responses: { 202: replayResponse, ...redeliverErrors },
  handler: async ({ ctx, principal, params, body }) =>
    replayEvents(ctx, principal!.orgId, params.webhookId, body),
});

/** Delivery log, redelivery and test ping for registered webhooks. */
export const WEBHOOK_DELIVERY_ROUTES: readonly AnyRouteDefinition[] = [
  listDeliveriesRoute,
  redeliverRoute,
  testWebhookRoute,
  replayWebhookRoute,
];
