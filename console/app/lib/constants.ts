/**
 * Scopes, plans, webhook event kinds, listing and transaction states, audit actions: the domain's
 * vocabulary.
 */
export { DEFAULT_ORG_SCOPES, SCOPES, WRITE_SCOPES } from "../../../relayer/src/domain/scope.ts";
export { PLANS } from "../../../relayer/src/domain/org.ts";
export { WEBHOOK_EVENT_KINDS as WEBHOOK_EVENTS } from "../../../relayer/src/domain/webhook-event.ts";
export { LISTING_STATES } from "../../../relayer/src/domain/listing.ts";
export { TRANSACTION_STATES } from "../../../relayer/src/domain/transaction.ts";
export { AUDIT_ACTIONS } from "../../../relayer/src/domain/audit.ts";

/** Spec section 5: budget about 0.15 coin per asset (0.1 stake + gas, with headroom). */
export const BUDGET_PER_ASSET_WEI = 150_000_000_000_000_000n;
