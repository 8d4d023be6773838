/**
 * The domain vocabulary shared by the relayer, the SDK (`relayer/sdk`) and the console: assets,
 * listings, transactions, webhook events, scopes, organizations, console sessions and the amount
 * format, as zod schemas and the types inferred from them (or plain types where nothing parses
 * them). Depends on zod only, so browser code can import it.
 *
 * Imports inside `domain/` name the `.ts` files themselves: the console's bundler (Turbopack)
 * resolves those but does not map the relayer's usual `.js` specifiers to `.ts` sources.
 */
export * from "./activity.ts";
export * from "./address.ts";
export * from "./api-key.ts";
export * from "./amount.ts";
export * from "./asset.ts";
export * from "./audit.ts";
export * from "./listing.ts";
export * from "./org.ts";
export * from "./person.ts";
export * from "./policy.ts";
export * from "./scope.ts";
export * from "./session.ts";
export * from "./timestamp.ts";
export * from "./transaction.ts";
export * from "./webhook.ts";
export * from "./webhook-event.ts";
export * from "./write-outcome.ts";
