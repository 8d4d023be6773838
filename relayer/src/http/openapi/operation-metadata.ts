/** OpenAPI tag names, in the order the reference page lists them. */
export const TAGS = [
  { name: "Assets", description: "Indexed asset (NFT) reads and ERC-721 metadata." },
  { name: "Marketplace", description: "Indexed marketplace listings." },
  {
    name: "Writes",
    description:
      "On-chain writes signed by the organization's custodial wallet. Send an `Idempotency-Key` " +
      "so a retried call never issues twice; `Prefer: respond-async` answers 202 at once.",
  },
  { name: "Transactions", description: "State of a write (async mode, or after a timeout)." },
  {
    name: "Organization",
    description: "Onboarding, the custodial wallet, and operator controls (admin token).",
  },
  {
    name: "Compliance",
    description:
      "Operator staff only (admin token): freeze, forced transfer, market pause, restricted " +
      "asset types and their allowlist (ERC-7943). Every action carries a reason.",
  },
  { name: "API keys", description: "Additional keys with a subset of the calling key's scopes." },
  {
    name: "People",
    description:
      "Named console users with roles (owner, admin, approver, developer, viewer): signed-in " +
      "people only, never an API key.",
  },
  { name: "Webhooks", description: "Signed HTTPS callbacks for on-chain activity." },
  {
    name: "Audit log",
    description: "Who did what: every management and operator action, hash-chained.",
  },
  {
    name: "Console",
    description: "Session endpoints of the admin console (cookie sessions; not for integrations).",
  },
  { name: "System", description: "Liveness, status and metrics." },
  { name: "Documentation", description: "This document, the reference page, Postman and the SDK." },
] as const;

/** One of `TAGS`. */
export type TagName = (typeof TAGS)[number]["name"];

/**
 * A route's documentation beyond its summary (`docs` of its `defineRoute`; a write kind's
 * `docs`): a stable operation id, tag, longer text, extra errors.
 */
export interface OperationMetadata {
  /** Also the SDK method name where the SDK covers the operation. */
  operationId: string;
  tag: TagName;
  /** Markdown appended after the summary. */
  description?: string;
  /** Route-specific `error` strings by status, shown as examples before the generic ones. */
  errors?: Partial<Record<number, readonly string[]>>;
}

/** The `errors` of a route that answers 404 `<what> not found`. */
export const notFoundErrors = (what: string) => ({ 404: [`${what} not found`] });
