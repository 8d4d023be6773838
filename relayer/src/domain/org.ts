/**
 * Organizations as the API describes them: their plans, the operator's list of them
 * (`orgs/controls.ts`) and the answer to a registration (`orgs/registration.ts`).
 */

/** Organization plans (docs/api-decisions.md; `limits/plan-limits.ts`). */
export const PLANS = ["free", "basic", "pro", "enterprise"] as const;

/** One plan name. */
export type Plan = (typeof PLANS)[number];

/**
 * An organization as operator staff list it (`GET /api/enterprise/orgs`,
 * `orgs/controls.ts`): no keys, no secrets; `keyCount` counts active keys (unrevoked,
 * unexpired).
 */
export interface OrgOverview {
  orgId: string;
  orgName: string;
  plan: string;
  scopes: string[];
  suspended: boolean;
  suspendedAt: string | null;
  walletAddress: string | null;
  keyCount: number;
  createdAt: string;
}

/** What an operator change did to an organization: each changed field, from → to. */
export interface OrgChanges {
  plan?: { from: string; to: Plan };
  suspended?: { from: boolean; to: boolean };
}

/** What the dev faucet did for a new wallet. */
export type DevFaucetOutcome =
  | { funded: true; amount: string; txHash: string }
  | { funded: false; amount: string; reason: string };

/** Result of a registration. `apiKey` is shown this once and never again. */
export interface RegisteredOrganization {
  orgId: string;
  orgName: string;
  apiKey: string;
  keyId: string;
  walletAddress: string;
  scopes: string[];
  plan: Plan;
  /**
   * Only where the dev faucet is on (local chain): whether the new wallet got its coin. When the
   * operator account cannot pay, the organization is registered without it and `reason` says why.
   */
  devFaucet?: DevFaucetOutcome;
  /** With `ownerEmail`: the first owner's single-use invitation link (72 h), shown once. */
  ownerInvitation?: { url: string; expiresAt: string };
}
