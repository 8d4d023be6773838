import { withRpc } from "../chain/rpc/rpc-errors.js";
import type { AppContext } from "../context.js";
import { AUDIT_ACTIONS, type AuditAction, type AuditChanges } from "../domain/audit.js";
import {
  appendOperatorOutcome,
  ATTEMPT_FIELD_NAMES,
  type OperatorAct,
  type OperatorTxOutcome,
} from "./operator-act-audit.js";

/** An attempt row without a final outcome, as read back. */
interface OpenAttempt {
  id: string;
  actor: string;
  org_id: string | null;
  target: string | null;
  request_id: string | null;
  source_address: string | null;
  changes: AuditChanges;
  act: string;
  tx_hash: string;
  nonce: string | null;
}

/** Fields of an attempt row that are the attempt's, not the act's. */
const ATTEMPT_FIELDS: ReadonlySet<string> = new Set(ATTEMPT_FIELD_NAMES);

/** Attempts younger than this are left to the request that sent them (it waits 60 s). */
const DEFAULT_MIN_AGE_MS = 90_000;

/**
 * Appends the outcome of every `operator_tx.attempted` row that has none yet, or only
 * `operator_tx.unconfirmed` (docs/audit-log.md "Acts on chain"): what a relayer killed between an
 * act's broadcast and its outcome row, or one that lost sight of the transaction, left open. Each
 * attempt's hash is looked up on chain: mined, it appends the act's own row (or
 * `operator_tx.failed`, `reverted`); unknown to the node while the operator account's nonce has
 * moved past the attempt's, `operator_tx.failed` (`rejected`: that nonce went to another
 * transaction, this one can never be mined). Anything else (still pending, the node unreachable)
 * stays open for the next run. Rows keep the attempt's actor, request id and address.
 * The relayer runs it at start and every 5 minutes, in the background
 * (`startOperatorAttemptSettler`), so attempts a dead process left open are settled while the
 * other processes keep running.
 *
 * @param minAgeMs leave attempts younger than this (default 90 s: their request may still be
 *   waiting for the receipt)
 * @returns how many attempts got their outcome
 */
export async function settleOperatorAttempts(
  ctx: AppContext,
  minAgeMs = DEFAULT_MIN_AGE_MS,
): Promise<number> {
  const { rows } = await ctx.database.pool.query<OpenAttempt>(
    `SELECT a.id::text AS id, a.actor, a.org_id, a.target, a.request_id, a.source_address,
            a.changes, a.changes->>'act' AS act, a.changes->>'txHash' AS tx_hash,
            a.changes->>'nonce' AS nonce
       FROM audit_log a
      WHERE a.action = $1 AND a.at < now() - make_interval(secs => $2::double precision / 1000)
        AND NOT EXISTS (
          SELECT 1 FROM audit_log o
           WHERE o.action IN (a.changes->>'act', $3) AND o.id > a.id
             AND o.changes->>'attemptId' = a.id::text)
      ORDER BY a.id LIMIT 500`,
    [AUDIT_ACTIONS.operatorTxAttempted, minAgeMs, AUDIT_ACTIONS.operatorTxFailed],
  );
  let settled = 0;
  for (const attempt of rows) {
    const txHash = attempt.tx_hash;
    const outcome = await outcomeOf(ctx, txHash, Number(attempt.nonce));
    if (outcome === undefined) continue;
    const act: OperatorAct = {
      origin: {
        actor: attempt.actor,
        requestId: attempt.request_id,
        sourceAddress: attempt.source_address,
      },
      entry: {
        orgId: attempt.org_id,
        action: attempt.act as AuditAction,
        target: attempt.target,
        changes: Object.fromEntries(
          Object.entries(attempt.changes).filter(([field]) => !ATTEMPT_FIELDS.has(field)),
        ),
      },
    };
    if (await appendOperatorOutcome(ctx.database.db, ctx.logger, act, attempt.id, txHash, outcome))
      settled += 1;
  }
  if (settled > 0)
    ctx.logger.info({ settled }, "audit: outcomes of open operator attempts appended");
  return settled;
}

/** How often a running relayer settles open attempts (after the run at start). */
const SETTLE_EVERY_MS = 5 * 60_000;

/**
 * Runs `settleOperatorAttempts` now (`firstRun`) and then every `intervalMs` (never two runs at
 * once) until `stop()`, which waits for a run in progress. A failed run is logged and tried at
 * the next tick.
 */
export function startOperatorAttemptSettler(
  ctx: AppContext,
  options: { intervalMs?: number; minAgeMs?: number } = {},
): { firstRun: Promise<void>; stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const run = (): Promise<void> => {
    if (running !== undefined) return running;
    running = settleOperatorAttempts(ctx, options.minAgeMs)
      .then(
        () => undefined,
        (err: unknown) =>
          ctx.logger.warn({ err }, "audit: open operator attempts not settled (tried again later)"),
      )
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const firstRun = run();
  const timer = setInterval(() => void run(), options.intervalMs ?? SETTLE_EVERY_MS);
  timer.unref();
  return {
    firstRun,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/** What the chain says of an attempt's transaction; undefined while it cannot say yet. */
async function outcomeOf(
  ctx: AppContext,
  txHash: string,
  nonce: number,
): Promise<OperatorTxOutcome | undefined> {
  const receipt = await withRpc(() => ctx.provider.getTransactionReceipt(txHash));
  if (receipt !== null)
    return receipt.status === 1
      ? { status: "mined", blockNumber: receipt.blockNumber }
      : { status: "reverted", blockNumber: receipt.blockNumber };
  if ((await withRpc(() => ctx.provider.getTransaction(txHash))) !== null) return undefined;
  const mined = await withRpc(() =>
    ctx.provider.getTransactionCount(ctx.operator.address, "latest"),
  );
  if (!Number.isInteger(nonce) || mined <= nonce) return undefined;
  return {
    status: "rejected",
    reason: `never mined: nonce ${nonce} of the operator account went to another transaction`,
  };
}
