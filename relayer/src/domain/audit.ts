import { z } from "zod";
import { timestamp } from "./timestamp.ts";

/**
 * The audit log's vocabulary: the actions it records and a row as the API returns it
 * (`GET /api/enterprise/audit-log`). The writer is `relayer/src/audit/audit-writer.ts`.
 */

/**
 * The actions recorded today, by what happened. The set is open: a later operator action
 * (freezing a token, say) appends its own name, `<subject>.<past-tense verb>` in lower case
 * (`AUDIT_ACTION_PATTERN`), and adds it here so the console's filter offers it.
 */
export const AUDIT_ACTIONS = {
  orgRegistered: "org.registered",
  orgPlanChanged: "org.plan_changed",
  orgSuspended: "org.suspended",
  orgResumed: "org.resumed",
  apiKeyCreated: "api_key.created",
  apiKeyRevoked: "api_key.revoked",
  webhookCreated: "webhook.created",
  webhookUpdated: "webhook.updated",
  webhookSecretRotated: "webhook.secret_rotated",
  webhookDeleted: "webhook.deleted",
  assetTypeRegistered: "asset_type.registered",
  // An organization's policy replaced (docs/policy.md), with the policy before and after.
  policyChanged: "policy.changed",
  // Writes held by the policy's approval rules, and people's decisions on them.
  transactionHeld: "transaction.held",
  transactionApproved: "transaction.approved",
  transactionRejected: "transaction.rejected",
  // People (docs/people.md).
  userInvited: "user.invited",
  userInvitationAccepted: "user.invitation_accepted",
  userRoleChanged: "user.role_changed",
  userRemoved: "user.removed",
  userPasskeyAdded: "user.passkey_added",
  userPasskeyRemoved: "user.passkey_removed",
  marketplaceTokenRescued: "marketplace.token_rescued",
  // Operator four-eyes (docs/people.md "Operator four-eyes"): a forced transfer, freeze or
  // unfreeze asked for, then approved (and carried out: its own row follows) or rejected.
  operatorRequestCreated: "operator_request.created",
  operatorRequestApproved: "operator_request.approved",
  operatorRequestRejected: "operator_request.rejected",
  // The operator's compliance controls (docs/contracts.md "Compliance controls"), once mined.
  assetFrozen: "asset.frozen",
  assetUnfrozen: "asset.unfrozen",
  assetForcedTransfer: "asset.forced_transfer",
  marketPaused: "market.paused",
  marketResumed: "market.resumed",
  assetTypeRestrictionChanged: "asset_type.restriction_changed",
  allowlistAdded: "allowlist.added",
  allowlistRemoved: "allowlist.removed",
  // Registration's chain acts from the operator account (an admin:types grant, the dev faucet).
  registrarRoleGranted: "registrar_role.granted",
  devFaucetSent: "dev_faucet.sent",
  // Every operator transaction (docs/audit-log.md "Acts on chain"): appended, committed, before
  // the broadcast; then the act's own row once mined, or one of the two below.
  operatorTxAttempted: "operator_tx.attempted",
  operatorTxFailed: "operator_tx.failed",
  operatorTxUnconfirmed: "operator_tx.unconfirmed",
  // `npm run backup` and `npm run restore` (docs/recovery.md): the file, the chain head, the rows.
  backupTaken: "backup.taken",
  backupRestored: "backup.restored",
} as const;

/** One of the actions recorded today. */
export type KnownAuditAction = (typeof AUDIT_ACTIONS)[keyof typeof AUDIT_ACTIONS];

/** An action name: a known one, or a later one of the same form (`token.frozen`). */
export type AuditAction = KnownAuditAction | `${string}.${string}`;

/** The form of every action name: dotted lower-case words, at most 64 characters. */
export const AUDIT_ACTION_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

/** The actor of an action taken with the admin token or an operator console session. */
export const ADMIN_ACTOR = "admin";
/** The actor of an action taken by the service itself or an operator's command-line tool. */
export const SYSTEM_ACTOR = "system";

/** A changed field's value: JSON without secrets (strings, finite numbers, booleans, null). */
export type AuditValue = string | number | boolean | null | AuditValue[] | AuditChanges;
/** The changed fields of an action, by name. */
export interface AuditChanges {
  [field: string]: AuditValue;
}

/** One row of the audit log as the API returns it. */
export const auditRecord = z.object({
  id: z.string().describe("position in the chain (1, 2, 3, ...), a decimal string"),
  at: timestamp,
  actor: z
    .string()
    .describe("the API key id that acted (a console session acts as its key), `admin` or `system`"),
  orgId: z.string().nullable().describe("the organization concerned; null for service-wide acts"),
  action: z.string().describe("`org.registered`, `api_key.revoked`, ..."),
  target: z.string().nullable().describe("id of what was acted on (key, webhook, org, token)"),
  requestId: z.string().nullable().describe("the request's `X-Request-Id`"),
  sourceAddress: z.string().nullable().describe("IP address the request came from"),
  changes: z.record(z.string(), z.unknown()).describe("the changed fields; never a secret"),
  prevHash: z.string().describe("hash of the row before (64 zeros for the first)"),
  hash: z.string().describe("SHA-256 (hex) of this row's canonical encoding, prevHash included"),
});

/** One row of the audit log. */
export type AuditRecord = z.output<typeof auditRecord>;
