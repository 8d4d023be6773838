import { z } from "zod";

/**
 * An organization's policy (docs/policy.md): where its custodial wallet may send assets, how
 * many transfers a day it may make, and which writes wait for a person's approval. Read with
 * `GET /api/enterprise/policy`, replaced whole with `PUT` (a signed-in owner only).
 */

/**
 * The write kinds a rule may name: `transactions.kind` of a write's root row, one per write
 * endpoint (a unit test keeps this list equal to the registry, `writes/kinds/index.ts`).
 */
export const POLICY_WRITE_KINDS = [
  "issue-asset",
  "batch-issue",
  "transfer",
  "list",
  "buy",
  "delist",
  "redeem-asset",
  "register-asset-type",
] as const;

/** One write kind a policy rule may name. */
export type PolicyWriteKind = (typeof POLICY_WRITE_KINDS)[number];

/** The kinds whose price a `priceAboveCOIN` rule can judge (marketplace writes). */
export const PRICED_WRITE_KINDS = ["list", "buy"] as const satisfies readonly PolicyWriteKind[];

/** At most this many allowlisted destinations per organization. */
export const MAX_ALLOWLIST_ENTRIES = 1_000;
/** At most this many approval rules. */
export const MAX_APPROVAL_RULES = 20;

const hexAddress = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "not a 0x address")
  .describe("0x address");

/** One allowlisted destination. */
export const allowlistEntry = z.strictObject({
  address: hexAddress,
  label: z
    .string()
    .trim()
    .min(1, "must be 1 to 100 characters")
    .max(100, "must be 1 to 100 characters"),
});

/** When an approval rule holds a write. */
export const approvalWhen = z.union([
  z.literal("always"),
  z.literal("outside-allowlist"),
  z.strictObject({
    priceAboveCOIN: z
      .string()
      .regex(/^\d{1,30}(\.\d{1,18})?$/, 'must be a decimal native-coin amount such as "10"'),
  }),
]);

/** One approval rule: writes of `kinds` that match `when` wait for `approvers` people. */
export const approvalRule = z.strictObject({
  kinds: z
    .array(z.enum(POLICY_WRITE_KINDS, { error: `must be one of ${POLICY_WRITE_KINDS.join(", ")}` }))
    .min(1, "must name at least one write kind")
    .max(POLICY_WRITE_KINDS.length),
  when: approvalWhen,
  approvers: z
    .number({ error: "must be 1 or 2" })
    .int("must be 1 or 2")
    .min(1, "must be 1 or 2")
    .max(2, "must be 1 or 2"),
});

/** A policy as `PUT /api/enterprise/policy` takes it and `GET` answers it. */
export const orgPolicy = z.strictObject({
  destinations: z.strictObject({
    mode: z.enum(["any", "allowlist"], { error: 'must be "any" or "allowlist"' }),
    allowlist: z.array(allowlistEntry).max(MAX_ALLOWLIST_ENTRIES),
  }),
  limits: z.strictObject({
    transfersPerDay: z
      .number({ error: "must be a whole number from 0, or null" })
      .int("must be a whole number from 0, or null")
      .min(0, "must be a whole number from 0, or null")
      .max(1_000_000, "must be at most 1000000")
      .nullable()
      .describe("transfers allowed in any rolling 24 hours; null: no limit"),
  }),
  approvals: z.array(approvalRule).max(MAX_APPROVAL_RULES),
});

/** An organization's policy. */
export type OrgPolicy = z.output<typeof orgPolicy>;

/** The policy of an organization that never set one: no restriction. */
export const DEFAULT_POLICY: OrgPolicy = Object.freeze({
  destinations: { mode: "any", allowlist: [] },
  limits: { transfersPerDay: null },
  approvals: [],
});

/** `GET`/`PUT /api/enterprise/policy` answer: the policy and when it last changed. */
export const orgPolicyResponse = orgPolicy.extend({
  updatedAt: z.string().nullable().describe("when it was last set; null: never (the default)"),
});
