/**
 * How long approvals are waited for: a write the organization's policy holds (docs/policy.md
 * "Approvals") and an operator request (docs/people.md "Operator four-eyes") expire this long
 * after they were asked for. `APPROVAL_EXPIRY_SECONDS` (docs/configuration.md) sets it.
 */

/** Default approval expiry: 24 hours. */
export const DEFAULT_APPROVAL_EXPIRY_MS = 24 * 60 * 60 * 1000;

/** The configured approval expiry (`Config.approvalExpiryMs`), else 24 hours. */
export function approvalExpiryMsOf(config: { approvalExpiryMs?: number | undefined }): number {
  return config.approvalExpiryMs ?? DEFAULT_APPROVAL_EXPIRY_MS;
}
