/** On-chain event kinds pushed to webhooks (spec section 6). */
export type ChainEventKind =
  | "asset.issued"
  | "asset.transferred"
  | "asset.listed"
  | "asset.sold"
  | "asset.delisted";

/** Every kind a delivery can carry: the chain kinds plus the `webhook.test` ping. */
export type DeliveryEventKind = ChainEventKind | "webhook.test";

/** The JSON body of every delivery (spec section 6 payload shape). */
export interface WebhookPayload {
  event: DeliveryEventKind;
  /** Milliseconds since the Unix epoch: the block's timestamp for chain events. */
  timestamp: number;
  orgId: string;
  txHash: string | null;
  blockNumber: number | null;
  data: Record<string, unknown>;
}

/** A row to write into the outbox (`webhook_events`). */
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
