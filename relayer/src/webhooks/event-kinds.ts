import type { DeliveryEventKind, WebhookPayload } from "../domain/webhook-event.js";

/**
 * A row to write into the outbox (`webhook_events`). The event kinds and payload shapes are the
 * domain's (`relayer/src/domain/webhook-event.ts`).
 */
export interface OutboxEvent {
  id: string;
  orgId: string;
  kind: DeliveryEventKind;
  blockNumber: number | null;
  blockHash: string | null;
  txHash: string | null;
  logIndex: number | null;
  payload: WebhookPayload;
}
