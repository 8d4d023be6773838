/**
 * The API's words for how a write ended, declared once: the synchronous answer and
 * `GET /api/v1/transactions/{id}` (`writes/write-failure.ts`) and the `transaction.*` webhook
 * events (written by the engine in the statement that ends the row, `engine/outcome-events.ts`)
 * say the same thing.
 */

/** The API's words for AssetToken's compliance rules (docs/contracts.md "Compliance controls"). */
export const COMPLIANCE_REASONS = {
  paused: "Transfers are paused",
  frozen: "Asset is frozen",
  recipient: "Recipient is not allowed to hold this asset type",
} as const;

/** One of `COMPLIANCE_REASONS`. */
export type ComplianceReason = (typeof COMPLIANCE_REASONS)[keyof typeof COMPLIANCE_REASONS];

/**
 * Revert reasons that mean the chain's state changed between the checks and the mining (another
 * write bought the listing, or it expired meanwhile; the operator paused transfers, froze the
 * asset or took the recipient off the allowlist). They are said as they are (the 400 the check
 * would have given had it run a moment later); any other reason is the spec's
 * `Transaction failed: <reason>` (docs/api-decisions.md, "Writes").
 */
export const STATE_RACE_REASONS: readonly string[] = [
  "Listing not active",
  ...Object.values(COMPLIANCE_REASONS),
];

/** What the spec puts before any other failure reason (section 7: 500 `Transaction failed: <reason>`). */
export const TRANSACTION_FAILED_PREFIX = "Transaction failed: ";

/** What a write cancelled before it was sent answers (409) and its event says. */
export const CANCELLED_REASON = "Transaction cancelled";

/** What a write whose deadline (`validForSeconds`) passed before it was sent answers (409). */
export const EXPIRED_REASON = "Transaction expired";

/** The longest deadline a write may be given (`validForSeconds`): 7 days. */
export const MAX_VALID_FOR_SECONDS = 7 * 24 * 3600;

/** Key of the metadata document (canonical JSON text) in an issue-asset row's `context`. */
export const METADATA_CONTEXT_KEY = "metadataDocument";

/**
 * Keys of a write's stored result that are the service's own bookkeeping rather than part of
 * what the write answers: left out of the `transaction.confirmed` event.
 */
export const PRIVATE_RESULT_KEYS: readonly string[] = [METADATA_CONTEXT_KEY];
