/** Scopes a key can carry (README "Decisions": keys and scopes); `write:all` stands for the three write scopes. */
export const SCOPES = [
  "read",
  "write:issue",
  "write:transfer",
  "write:marketplace",
  "webhooks",
  "admin:types",
  "write:all",
] as const;

export const WRITE_SCOPES = ["write:issue", "write:transfer", "write:marketplace"] as const;

/** Scopes a new organization gets by default. */
export const DEFAULT_ORG_SCOPES = [
  "read",
  "write:issue",
  "write:transfer",
  "write:marketplace",
  "webhooks",
] as const;

/** The webhook event kinds and listing states: the relayer's domain vocabulary. */
export { WEBHOOK_EVENT_KINDS as WEBHOOK_EVENTS } from "../../../relayer/src/domain/webhook-event.ts";
export { LISTING_STATES } from "../../../relayer/src/domain/listing.ts";

export const PLANS = ["free", "basic", "pro", "enterprise"] as const;

/** Spec section 5: budget about 0.15 coin per asset (0.1 stake + gas, with headroom). */
export const BUDGET_PER_ASSET_WEI = 150_000_000_000_000_000n;
