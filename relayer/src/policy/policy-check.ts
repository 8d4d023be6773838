import { sql } from "drizzle-orm";
import type { Database, DbTransaction } from "../db/client.js";
import type { OrgPolicy } from "../domain/policy.js";
import { PolicyViolationError } from "../errors.js";
import { readPolicyForWrite } from "./org-policy.js";

/**
 * A write judged by its organization's policy (docs/policy.md). Twice: once before anything is
 * estimated or signed (`precheckWrite`, so a refused write costs no node call), and once in the
 * database transaction that records it (`enforceAtRecord`), under a lock on the policy row, so
 * "the policy in force when it is recorded" is exact and concurrent transfers cannot together
 * overshoot the daily limit.
 */

/** What the policy needs to know of a write. */
export interface PolicyQuestion {
  /** `transactions.kind` of the write's root row. */
  kind: string;
  /** Checksummed addresses the write sends an asset to (a transfer's `toAddress`). */
  destinations: readonly string[];
}

/** The kinds the daily transfer limit counts, and whose policy is checked at record time. */
export const LIMITED_KINDS: ReadonlySet<string> = new Set(["transfer"]);

/** Rolling window of `limits.transfersPerDay`. */
const DAY_MS = 24 * 60 * 60 * 1000;

/** Whether the policy can refuse a write of this question at all (else no check is needed). */
export function policyApplies(question: PolicyQuestion): boolean {
  return question.destinations.length > 0 || LIMITED_KINDS.has(question.kind);
}

/**
 * The destination rule alone (pure): with `destinations.mode` `allowlist`, every destination
 * must be on the list (addresses compared case-insensitively).
 *
 * @throws PolicyViolationError `Policy: destination 0x… is not on the organization's allowlist`
 */
export function checkDestinations(policy: OrgPolicy, destinations: readonly string[]): void {
  if (policy.destinations.mode !== "allowlist") return;
  const allowed = new Set(policy.destinations.allowlist.map((e) => e.address.toLowerCase()));
  for (const destination of destinations) {
    if (!allowed.has(destination.toLowerCase()))
      throw new PolicyViolationError(
        `destination ${destination} is not on the organization's allowlist`,
      );
  }
}

function overLimit(limit: number): PolicyViolationError {
  return new PolicyViolationError(
    `the organization's limit of ${limit} transfer${limit === 1 ? "" : "s"} in 24 hours is reached`,
  );
}

/** The org's transfers recorded in the last 24 hours that did not fail (as `executor` sees them). */
async function transfersToday(
  executor: Pick<Database, "db"> | { db: DbTransaction },
  orgId: string,
) {
  const result = await executor.db.execute<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM transactions
         WHERE org_id = ${orgId} AND parent_id IS NULL AND kind = 'transfer'
           AND created_at > now() - ${DAY_MS} * interval '1 millisecond'
           AND state NOT IN ('failed', 'replaced')`,
  );
  return Number(result.rows[0]?.n ?? 0);
}

/**
 * The check before a write is prepared further: the destinations, and the daily limit as the
 * database holds it now (the exact count is taken again at record time). Judged by the policy
 * this process keeps (`readPolicyForWrite`); a refusal is judged again on a fresh read first, so
 * a policy loosened a moment ago in another process never refuses.
 *
 * @throws PolicyViolationError
 */
export async function precheckWrite(
  database: Pick<Database, "db">,
  orgId: string,
  question: PolicyQuestion,
): Promise<void> {
  if (!policyApplies(question)) return;
  try {
    await judge(database, (await readPolicyForWrite(database, orgId)).policy, orgId, question);
  } catch (error) {
    if (!(error instanceof PolicyViolationError)) throw error;
    const { policy } = await readPolicyForWrite(database, orgId, { fresh: true });
    await judge(database, policy, orgId, question);
  }
}

async function judge(
  database: Pick<Database, "db">,
  policy: OrgPolicy,
  orgId: string,
  question: PolicyQuestion,
): Promise<void> {
  checkDestinations(policy, question.destinations);
  const limit = policy.limits.transfersPerDay;
  if (limit !== null && LIMITED_KINDS.has(question.kind)) {
    if ((await transfersToday(database, orgId)) >= limit) throw overLimit(limit);
  }
}

/**
 * The check inside the transaction that records the write, after its rows were inserted: locks
 * the organization's policy row (a policy change, and the org's other transfers, wait for this
 * transaction), reads the policy in force, checks the destinations, and counts the org's
 * transfers of the last 24 hours, this one included. A refusal throws, which rolls the
 * transaction back: nothing is recorded or signed.
 *
 * @throws PolicyViolationError
 */
export async function enforceAtRecord(
  tx: DbTransaction,
  orgId: string,
  question: PolicyQuestion,
): Promise<void> {
  const locked = await tx.execute<{ policy: OrgPolicy }>(
    sql`SELECT policy FROM org_policies WHERE org_id = ${orgId} FOR UPDATE`,
  );
  const policy = locked.rows[0]?.policy;
  if (policy === undefined) return; // the default: no restriction
  checkDestinations(policy, question.destinations);
  const limit = policy.limits.transfersPerDay;
  if (limit !== null && LIMITED_KINDS.has(question.kind)) {
    if ((await transfersToday({ db: tx }, orgId)) > limit) throw overLimit(limit);
  }
}
