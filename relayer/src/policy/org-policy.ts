import { eq, inArray, sql } from "drizzle-orm";
import { getAddress, isAddress, ZeroAddress } from "ethers";
import { Batcher } from "../db/batcher.js";
import type { Database, DbTransaction } from "../db/client.js";
import { orgPolicies } from "../db/schema/index.js";
import { appendAudit, type AuditOrigin } from "../audit/audit-writer.js";
import { AUDIT_ACTIONS, type AuditChanges } from "../domain/audit.js";
import { DEFAULT_POLICY, type OrgPolicy } from "../domain/policy.js";
import { ValidationError } from "../errors.js";
import { ORG_CHANGED_CHANNEL } from "../db/org-changed-channel.js";

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
 * How long a process keeps an organization's policy for its writes (`readPolicyForWrite`). Each
 * write is judged by the policy it was read with, and the statement that records it checks that
 * the stored policy is still that one (`TxStore.record`: verdict `policy-changed`, and the write
 * is judged again on a fresh read), so a kept policy never lets a write through that the policy
 * in force would hold or refuse. A change made in any process is forgotten at once here
 * (`forgetPolicy`, on `ORG_CHANGED_CHANNEL`); the bound is for memory, and for a held or
 * refused write, which is judged again on a fresh read before it is answered.
 */
export const POLICY_CACHE_TTL_MS = 600_000;

/** At most this many organizations' policies are kept per process; when full, it starts over. */
const POLICY_CACHE_MAX = 10_000;

/**
 * Per pool: the policy reads for writes, sent as one statement per event-loop turn
 * (`db/batcher.ts`), and the policies they read. Read once per write, the policy was a third of
 * the statements of a burst (0.65 per write of 1.88, issue 45), the most after the record itself.
 */
interface PolicyReads {
  batcher: Batcher<string, PolicyForWrite>;
  kept: Map<string, { stored: PolicyForWrite; until: number }>;
  /** Counts `forgetPolicy` calls: a read sent before one is not kept. */
  generation: number;
}

const policyReads = new WeakMap<object, PolicyReads>();

/**
 * A policy as a write is judged by it, with its digest: the SHA-256 of the stored jsonb's text
 * (PostgreSQL's canonical form), null when the org has none. The record statement compares the
 * stored policy's digest with it (`CheckedWrite.policyJudged`): 64 characters per write, not
 * the policy (up to 1,000 allowlisted addresses).
 */
export interface PolicyForWrite extends StoredPolicy {
  digest: string | null;
}

/** The digest of a stored policy, in SQL (`PolicyForWrite.digest`; `CHECKED_RECORD_SQL` computes the same). */
const POLICY_DIGEST = sql<string>`encode(sha256(convert_to(${orgPolicies.policy}::text, 'UTF8')), 'hex')`;

function readsOf(database: Pick<Database, "db">): PolicyReads {
  let reads = policyReads.get(database);
  if (reads === undefined) {
    const created: PolicyReads = {
      kept: new Map(),
      generation: 0,
      batcher: new Batcher(async (orgIds: readonly string[]) => {
        const generation = created.generation;
        const rows = await database.db
          .select({
            orgId: orgPolicies.orgId,
            policy: orgPolicies.policy,
            updatedAt: orgPolicies.updatedAt,
            digest: POLICY_DIGEST,
          })
          .from(orgPolicies)
          .where(inArray(orgPolicies.orgId, [...new Set(orgIds)]));
        const byOrg = new Map(rows.map((row) => [row.orgId, row]));
        const answers = orgIds.map((orgId): PolicyForWrite => {
          const row = byOrg.get(orgId);
          return { ...storedPolicyOf(row), digest: row?.digest ?? null };
        });
        if (generation === created.generation) {
          if (created.kept.size + orgIds.length > POLICY_CACHE_MAX) created.kept.clear();
          const until = Date.now() + POLICY_CACHE_TTL_MS;
          orgIds.forEach((orgId, i) => created.kept.set(orgId, { stored: answers[i]!, until }));
        }
        return answers;
      }),
    };
    reads = created;
    policyReads.set(database, reads);
  }
  return reads;
}

/**
 * `readPolicy` for the write path: the policy this process keeps for the organization (see
 * `POLICY_CACHE_TTL_MS` for why that is safe), else read, the reads of one event-loop turn in
 * one statement. `fresh`: read it now whatever is kept (a write about to be held or refused).
 */
export function readPolicyForWrite(
  database: Pick<Database, "db">,
  orgId: string,
  options: { fresh?: boolean } = {},
): Promise<PolicyForWrite> {
  const reads = readsOf(database);
  if (options.fresh !== true) {
    const kept = reads.kept.get(orgId);
    if (kept !== undefined && kept.until > Date.now()) return Promise.resolve(kept.stored);
  }
  return reads.batcher.add(orgId);
}

/**
 * Forgets the policy kept for the organization (it changed, here or in another process): its
 * next write reads it.
 */
export function forgetPolicy(database: Pick<Database, "db">, orgId: string): void {
  const reads = policyReads.get(database);
  if (reads === undefined) return;
  reads.generation++;
  reads.kept.delete(orgId);
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
 * "before" is the policy it replaced). Every process forgets the policy it kept for the org.
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
  const stored = await database.db.transaction(async (tx) => {
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
    // Every process forgets the policy it keeps for the org (`forgetPolicy`), at commit.
    await tx.execute(sql`SELECT pg_notify(${ORG_CHANGED_CHANNEL}, ${orgId})`);
    return { policy, updatedAt: row?.updatedAt ?? new Date() };
  });
  forgetPolicy(database, orgId);
  return stored;
}
