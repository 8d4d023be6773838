/**
 * PostgreSQL channel of changes to an organization (plan, suspension, a key revoked, its policy):
 * payload = the org id, sent in the transaction that makes the change (delivered at commit).
 * Every process forgets what it keeps of that org: its cached keys and its policy
 * (`create-app-context.ts`, on the notifier's `orgChanged`).
 */
export const ORG_CHANGED_CHANNEL = "rwa_org_changed";
