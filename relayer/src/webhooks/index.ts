/** Webhook delivery: `startWebhookWorkers(ctx)` (see start-webhook-workers.ts). */
export { startWebhookWorkers, type WebhookWorkersHandle } from "./start-webhook-workers.js";
export type { DeliveryOptions } from "./delivery-options.js";
