/** The whole database schema. Each concern keeps its tables in its own file. */
export * from "./orgs.js";
export * from "./rate-limits.js";
export * from "./indexer.js";
export * from "./webhook-deliveries.js";
export * from "./transactions.js";
export * from "./metadata.js";
export * from "./audit.js";
export * from "./wallet-alerts.js";
export * from "./policy.js";
export * from "./people.js";
export * from "./held-writes.js";
export * from "./recovery.js";
export * from "./operator-requests.js";
