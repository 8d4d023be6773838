import type { WebhookPayload } from "../domain/webhook-event.js";

/**
 * The exact bytes sent: the payload with its fields in the spec's order (jsonb does not keep key
 * order, so the stored payload is re-serialised deterministically).
 */
export function payloadBody(payload: WebhookPayload): string {
  return JSON.stringify({
    event: payload.event,
    timestamp: payload.timestamp,
    orgId: payload.orgId,
    txHash: payload.txHash,
    blockNumber: payload.blockNumber,
    data: payload.data,
  });
}
