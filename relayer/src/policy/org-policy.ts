import { eq, inArray, sql } from "drizzle-orm";
import { getAddress, isAddress, ZeroAddress } from "ethers";
import { Batcher } from "../db/batcher.js";
import type { Database, DbTransaction } from "../db/client.js";
import { orgPolicies } from "../db/schema/index.js";
import { appendAudit, type AuditOrigin } from "../audit/audit-writer.js";
import { AUDIT_ACTIONS, type AuditChanges } from "../domain/audit.js";
import { DEFAULT_POLICY, type OrgPolicy } from "../domain/policy.js";
import { ValidationError } from "../errors.js";

/**
 * An organization's policy (docs/policy.md): read it, replace it. The policy is checked on every
 * write where it applies (`policy-check.ts`); here it is only stored and audited.
 */

/** A policy as stored, with when it was set (null: never, the default applies). */
export interface StoredPolicy {
  policy: OrgPolicy;
  updatedAt: Date | null;
}

/** The organization's policy, or the default (no restriction) when it never set one. */
export async function readPolicy(
  database: Pick<Database, "db"> | { db: DbTransaction },
  orgId: string,
): Promise<StoredPolicy> {
  const rows = await database.db
    .select({ policy: orgPolicies.policy, updatedAt: orgPolicies.updatedAt })
    .from(orgPolicies)
    .where(eq(orgPolicies.orgId, orgId))
    .limit(1);
  return storedPolicyOf(rows[0]);
}

/** A policy row as stored, or the default (no restriction) when the organization has none. */
function storedPolicyOf(row: StoredPolicy | undefined): StoredPolicy {
  return row === undefined
    ? { policy: DEFAULT_POLICY, updatedAt: null }
    : { policy: row.policy, updatedAt: row.updatedAt };
}

/**
 * Each pool's policy reads for writes, sent as one statement per event-loop turn
 * (`db/batcher.ts`). A write reads its organization's policy before it is prepared (approval
 * rules, destinations); one statement each was most of the accept path's database traffic in a
 * burst (2,080 of 2,651 statements for 2,080 writes, issue 45), and with the pool's 20
 * connections taken the requests queued for them. The statement is sent after every request it
 * answers arrived, so no write sees an older policy than a read of its own would.
 */
const policyReads = new WeakMap<object, Batcher<string, StoredPolicy>>();

/** `readPolicy` for the write path: the reads of one event-loop turn share one statement. */
export function readPolicyForWrite(
  database: Pick<Database, "db">,
  orgId: string,
): Promise<StoredPolicy> {
  let batcher = policyReads.get(database);
  if (batcher === undefined) {
    batcher = new Batcher(async (orgIds: readonly string[]) => {
      const rows = await database.db
        .select({
          orgId: orgPolicies.orgId,
          policy: orgPolicies.policy,
          updatedAt: orgPolicies.updatedAt,
        })
        .from(orgPolicies)
        .where(inArray(orgPolicies.orgId, [...new Set(orgIds)]));
      const byOrg = new Map(rows.map((row) => [row.orgId, row]));
      return orgIds.map((orgId) => storedPolicyOf(byOrg.get(orgId)));
    });
    policyReads.set(database, batcher);
  }
  return batcher.add(orgId);
}

/**
 * The checks the schema (`domain/policy.ts`) cannot make: each allowlisted address is a valid
 * (checksum-correct when mixed-case) address other than the zero address, and appears once;
 * addresses are stored checksummed; `priceAboveCOIN` names `list` or `buy` only.
 *
 * @throws ValidationError (400) naming the field
 */
export function normalizePolicy(policy: OrgPolicy): OrgPolicy {
  const seen = new Set<string>();
  const allowlist = policy.destinations.allowlist.map((entry, index) => {
    const field = `destinations.allowlist.${index}.address`;
    if (!isAddress(entry.address))
      throw new ValidationError(`Invalid field: ${field} (not a 0x address)`);
    const address = getAddress(entry.address);
    if (address === ZeroAddress)
      throw new ValidationError(`Invalid field: ${field} (the zero address cannot hold tokens)`);
    if (seen.has(address)) throw new ValidationError(`Invalid field: ${field} (listed twice)`);
    seen.add(address);
    return { address, label: entry.label };
  });
  policy.approvals.forEach((rule, index) => {
    if (typeof rule.when === "object" && rule.kinds.some((k) => k !== "list" && k !== "buy"))
      throw new ValidationError(
        `Invalid field: approvals.${index}.when (priceAboveCOIN applies to list and buy only)`,
      );
  });
  return {
    destinations: { mode: policy.destinations.mode, allowlist },
    limits: { transfersPerDay: policy.limits.transfersPerDay },
    approvals: policy.approvals,
  };
}

/**
 * Replaces the organization's policy, and appends `policy.changed` with the policy before and
 * after, in one transaction (the policy row locked: concurrent changes queue, and each audit row's
 * "before" is the policy it replaced).
 *
 * @throws ValidationError for a policy `normalizePolicy` refuses; nothing is changed
 */
export async function writePolicy(
  database: Pick<Database, "db">,
  orgId: string,
  input: OrgPolicy,
  origin: AuditOrigin,
): Promise<StoredPolicy> {
  const policy = normalizePolicy(input);
  return database.db.transaction(async (tx) => {
    const before = await tx
      .select({ policy: orgPolicies.policy })
      .from(orgPolicies)
      .where(eq(orgPolicies.orgId, orgId))
      .for("update");
    const [row] = await tx
      .insert(orgPolicies)
      .values({ orgId, policy })
      .onConflictDoUpdate({
        target: orgPolicies.orgId,
        set: { policy, updatedAt: sql`now()` },
      })
      .returning({ updatedAt: orgPolicies.updatedAt });
    await appendAudit(tx, origin, {
      orgId,
      action: AUDIT_ACTIONS.policyChanged,
      target: orgId,
      changes: {
        before: (before[0]?.policy ?? DEFAULT_POLICY) as unknown as AuditChanges,
        after: policy as unknown as AuditChanges,
      },
    });
    return { policy, updatedAt: row?.updatedAt ?? new Date() };
  });
}
