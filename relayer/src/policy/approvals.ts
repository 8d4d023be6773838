import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../db/client.js";
import { heldWrites, type HeldApproval } from "../db/schema/index.js";
import { appendAudit, type AuditOrigin } from "../audit/audit-writer.js";
import { AUDIT_ACTIONS } from "../domain/audit.js";
import type { OrgPolicy } from "../domain/policy.js";
import { ConflictError, ForbiddenError, NotFoundError } from "../errors.js";
import { parseCoin } from "../shared/coin-amount.js";

/**
 * Maker-checker approval (docs/policy.md "Approvals"): a write an approval rule of the
 * organization's policy holds is kept here, answered 202 `pending_approval`, and nothing of it is
 * signed. People with role `approver` or `owner` approve or reject it (never the person who asked
 * for it; with `approvers: 2`, two different people); once enough approve, the caller records it
 * as a transaction under the same id (`http/routes/transactions.ts`). A write left pending
 * `APPROVAL_EXPIRY_SECONDS` (24 h by default) is expired (read from `expires_at`: no worker
 * needed). Holding one writes `transaction.approval_required` into the webhook outbox in the same
 * transaction.
 */

/** What an approval rule looks at. */
export interface ApprovalQuestion {
  kind: string;
  destinations: readonly string[];
  /** The price a marketplace write names (wei); undefined when it names none. */
  priceWei: bigint | undefined;
}

/**
 * How many approvals the policy's rules ask of a write (the largest of the rules that hold it),
 * or 0. `outside-allowlist` holds a write with a destination that is not on the allowlist (with
 * `destinations.mode: "any"`; in `allowlist` mode such a write is refused outright);
 * `priceAboveCOIN` holds a `list` or `buy` whose price is above it, or a `buy` that names no
 * price (`maxPriceInCOIN`), since what it will pay is then unknown.
 */
export function approvalsNeeded(policy: OrgPolicy, question: ApprovalQuestion): number {
  const allowed = new Set(policy.destinations.allowlist.map((e) => e.address.toLowerCase()));
  let needed = 0;
  for (const rule of policy.approvals) {
    if (!(rule.kinds as readonly string[]).includes(question.kind)) continue;
    let holds: boolean;
    if (rule.when === "always") holds = true;
    else if (rule.when === "outside-allowlist")
      holds = question.destinations.some((d) => !allowed.has(d.toLowerCase()));
    else {
      const limit = parseCoin(rule.when.priceAboveCOIN, "priceAboveCOIN");
      holds = question.priceWei === undefined || question.priceWei > limit;
    }
    if (holds) needed = Math.max(needed, rule.approvers);
  }
  return needed;
}

/** A held write as stored, its state read with its expiry. */
export interface HeldWrite {
  id: string;
  orgId: string;
  kind: string;
  body: unknown;
  requestedBy: string;
  requesterUserId: string | null;
  approvers: number;
  approvals: HeldApproval[];
  state: "pending_approval" | "approved" | "rejected" | "expired" | "failed";
  error: string | null;
  createdAt: Date;
  expiresAt: Date;
}

type Row = typeof heldWrites.$inferSelect;

function heldOf(row: Row): HeldWrite {
  const expired = row.state === "pending_approval" && row.expiresAt.getTime() <= Date.now();
  return {
    id: row.id,
    orgId: row.orgId,
    kind: row.kind,
    body: row.body,
    requestedBy: row.requestedBy,
    requesterUserId: row.requesterUserId,
    approvers: row.approvers,
    approvals: row.approvals,
    state: expired ? "expired" : (row.state as HeldWrite["state"]),
    error: row.error,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
  };
}

/**
 * SQL: the `transaction.approval_required` webhook event of a held write, into the outbox in the
 * hold's own transaction (it commits with the hold or not at all), on the terms of the other
 * `transaction.*` events: only while an enabled webhook of the organization subscribes to it,
 * `pending` (released at the indexer's next step, then signed and retried like every event), its
 * id the write's and the kind's (written once).
 */
function approvalRequiredEventSql(
  write: {
    id: string;
    orgId: string;
    kind: string;
    idempotencyKey: string | undefined;
    requestedBy: string;
    approvers: number;
  },
  expiresAt: Date,
) {
  const data = {
    transactionId: write.id,
    kind: write.kind,
    status: "pending_approval",
    ...(write.idempotencyKey === undefined ? {} : { idempotencyKey: write.idempotencyKey }),
    approvalsRequired: write.approvers,
    requestedBy: write.requestedBy,
    expiresAt: expiresAt.toISOString(),
  };
  const kind = "transaction.approval_required";
  return sql`INSERT INTO webhook_events (id, org_id, kind, block_number, block_hash, tx_hash, payload, status)
    SELECT 'evt_' || md5(${write.id} || '|' || ${kind} || '|'), ${write.orgId}, ${kind}, NULL, NULL, NULL,
           jsonb_build_object('event', ${kind}::text,
                              'timestamp', (extract(epoch FROM now()) * 1000)::bigint,
                              'orgId', ${write.orgId}::text, 'txHash', NULL, 'blockNumber', NULL,
                              'data', ${JSON.stringify(data)}::jsonb),
           'pending'
     WHERE EXISTS (SELECT 1 FROM webhooks w
                    WHERE w.org_id = ${write.orgId} AND w.enabled AND w.deleted_at IS NULL
                      AND ${kind} = ANY(w.events))
    ON CONFLICT (id) DO NOTHING`;
}

/** Holds a write; returns its id (the existing one for an `Idempotency-Key` seen before). */
export async function holdWrite(
  database: Pick<Database, "db">,
  write: {
    id: string;
    orgId: string;
    kind: string;
    body: unknown;
    idempotencyKey: string | undefined;
    requestedBy: string;
    requesterUserId: string | undefined;
    approvers: number;
    /** How long it waits for its approvals (`APPROVAL_EXPIRY_SECONDS`). */
    expiresInMs: number;
  },
  origin: AuditOrigin,
): Promise<string> {
  const expiresAt = new Date(Date.now() + write.expiresInMs);
  return database.db.transaction(async (tx) => {
    if (write.idempotencyKey !== undefined) {
      const seen = await tx
        .select({ id: heldWrites.id })
        .from(heldWrites)
        .where(
          and(
            eq(heldWrites.orgId, write.orgId),
            eq(heldWrites.idempotencyKey, write.idempotencyKey),
          ),
        )
        .limit(1);
      if (seen[0] !== undefined) return seen[0].id;
    }
    await tx.insert(heldWrites).values({
      id: write.id,
      orgId: write.orgId,
      kind: write.kind,
      body: write.body,
      idempotencyKey: write.idempotencyKey ?? null,
      requestedBy: write.requestedBy,
      requesterUserId: write.requesterUserId ?? null,
      approvers: write.approvers,
      expiresAt,
    });
    await tx.execute(approvalRequiredEventSql(write, expiresAt));
    await appendAudit(tx, origin, {
      orgId: write.orgId,
      action: AUDIT_ACTIONS.transactionHeld,
      target: write.id,
      changes: { kind: write.kind, approvers: write.approvers },
    });
    return write.id;
  });
}

/** The organization's held write `id`, or undefined (another org's is undefined too). */
export async function readHeld(
  database: Pick<Database, "db">,
  orgId: string,
  id: string,
): Promise<HeldWrite | undefined> {
  const rows = await database.db
    .select()
    .from(heldWrites)
    .where(and(eq(heldWrites.id, id), eq(heldWrites.orgId, orgId)))
    .limit(1);
  return rows[0] === undefined ? undefined : heldOf(rows[0]);
}

/** The organization's writes waiting for approval (not expired), oldest first, at most 100. */
export async function listPendingHeld(
  database: Pick<Database, "db">,
  orgId: string,
): Promise<HeldWrite[]> {
  const rows = await database.db
    .select()
    .from(heldWrites)
    .where(
      and(
        eq(heldWrites.orgId, orgId),
        eq(heldWrites.state, "pending_approval"),
        sql`${heldWrites.expiresAt} > now()`,
      ),
    )
    .orderBy(heldWrites.createdAt, heldWrites.id)
    .limit(100);
  return rows.map(heldOf);
}

/** The deciding person. */
export interface Decider {
  orgId: string;
  userId: string;
  email: string;
}

/**
 * Records a person's decision on a held write, under its row lock. Approvals of people removed
 * since no longer count. Approve: answers whether the count is now reached (the caller then
 * records the write); reject: the write ends `rejected`.
 *
 * @throws NotFoundError (another org's or unknown); ForbiddenError for the requester;
 *   ConflictError `Transaction is <state>` when it is no longer pending, or `Already approved by
 *   you`
 */
export async function decideHeld(
  database: Pick<Database, "db">,
  decider: Decider,
  id: string,
  decision: "approve" | "reject",
  origin: AuditOrigin,
): Promise<{ held: HeldWrite; reached: boolean }> {
  return database.db.transaction(async (tx) => {
    const rows = await tx
      .select()
      .from(heldWrites)
      .where(and(eq(heldWrites.id, id), eq(heldWrites.orgId, decider.orgId)))
      .for("update");
    const row = rows[0];
    if (row === undefined) throw new NotFoundError("Transaction not found");
    const held = heldOf(row);
    if (held.state !== "pending_approval") throw new ConflictError(`Transaction is ${held.state}`);
    if (held.requesterUserId === decider.userId)
      throw new ForbiddenError("The person who requested a write cannot approve or reject it");
    // Only approvals of people still in the organization count.
    const active = await tx.execute<{ id: string }>(
      sql`SELECT id FROM users WHERE org_id = ${decider.orgId} AND removed_at IS NULL`,
    );
    const activeIds = new Set(active.rows.map((r) => r.id));
    const counted = held.approvals.filter((a) => activeIds.has(a.userId));
    if (decision === "reject") {
      await tx
        .update(heldWrites)
        .set({ state: "rejected", decidedBy: decider.userId })
        .where(eq(heldWrites.id, id));
      await appendAudit(tx, origin, {
        orgId: decider.orgId,
        action: AUDIT_ACTIONS.transactionRejected,
        target: id,
        changes: { kind: held.kind },
      });
      return { held: { ...held, state: "rejected" as const }, reached: false };
    }
    if (counted.some((a) => a.userId === decider.userId))
      throw new ConflictError("Already approved by you");
    const approvals = [
      ...counted,
      { userId: decider.userId, email: decider.email, at: new Date().toISOString() },
    ];
    const reached = approvals.length >= held.approvers;
    await tx
      .update(heldWrites)
      .set({ approvals, ...(reached ? { state: "approved", decidedBy: decider.userId } : {}) })
      .where(eq(heldWrites.id, id));
    await appendAudit(tx, origin, {
      orgId: decider.orgId,
      action: AUDIT_ACTIONS.transactionApproved,
      target: id,
      changes: { kind: held.kind, approvals: approvals.length, required: held.approvers },
    });
    return {
      held: { ...held, approvals, state: reached ? ("approved" as const) : held.state },
      reached,
    };
  });
}

/** An approved write that could not be recorded (its checks refused it at approval): `failed`. */
export async function markHeldFailed(
  database: Pick<Database, "db">,
  id: string,
  error: string,
): Promise<void> {
  await database.db.update(heldWrites).set({ state: "failed", error }).where(eq(heldWrites.id, id));
}
