import type { AppContext } from "../context.js";
import {
  NotFoundError,
  RateLimitError,
  TransactionFailedError,
  UnavailableError,
  ValidationError,
} from "../errors.js";
import { newTxId } from "../engine/tx-ids.js";
import { reservedFeeCap } from "../engine/fee-policy.js";
import { isFinal } from "../engine/tx-lifecycle.js";
import { isGroupRow } from "../engine/tx-rows.js";
import type {
  CheckedWrite,
  IdempotencyClaim,
  RecordedRow,
  RecordVerdict,
  TxRow,
} from "../engine/tx-store.js";
import type { DbTransaction } from "../db/client.js";
import type { AuditOrigin } from "../audit/audit-writer.js";
import { appendWriteAudit } from "../audit/write-audit.js";
import { approvalsNeeded, holdWrite } from "../policy/approvals.js";
import { approvalExpiryMsOf } from "../domain/approval-expiry.js";
import { forgetPolicy, readPolicyForWrite } from "../policy/org-policy.js";
import {
  enforceAtRecord,
  policyApplies,
  precheckWrite,
  type PolicyQuestion,
} from "../policy/policy-check.js";
import { formatCoinShort } from "../shared/coin-amount.js";
import { tagCallData, type WriteTag } from "../engine/write-tag.js";
import type { AdmissionArrival } from "./admission.js";
import {
  findIdempotent,
  findRecoveredIdempotent,
  idempotencyKeyTags,
  requestHashes,
} from "./idempotency.js";
import { WRITE_LIMITS } from "./limits.js";
import type { RegisteredWriteKind } from "./kinds/index.js";
import type { AnyWriteKind, PreparedCall } from "./kinds/write-kind.js";
import type { OrgWallet } from "./wallet-of-org.js";
import { failedWriteError } from "./write-failure.js";

/** A write to execute: the validated body of one write kind's route (`http/routes/write.ts`). */
export interface WriteRequest {
  /** The kind's module (`writes/kinds/<kind>.ts`): it checks the body against the chain and builds the call(s). */
  kind: AnyWriteKind & Pick<RegisteredWriteKind, "kind">;
  orgId: string;
  /** The validated body (hashed for idempotency). */
  body: unknown;
  idempotencyKey: string | undefined;
  /** The body's `validForSeconds`: not sent within it, the write ends `expired` unsent. */
  validForSeconds: number | undefined;
  respondAsync: boolean;
  /** Who asked (key or session, request id): a management act's audit row names it. */
  origin: AuditOrigin;
  /** The person who asked, for a write from a console session (they may not approve it). */
  requesterUserId?: string | undefined;
  /**
   * Set when people approved this held write (`policy/approvals.ts`): it is recorded under its
   * held id, and the approval rules do not hold it again.
   */
  approved?: { transactionId: string } | undefined;
  /** The place the request took in the accept path on arrival (`WriteAdmission.arrive`). */
  arrival?: AdmissionArrival | undefined;
}

/** What the route answers: a final row (200 or the error it carries) or 202 with the id. */
export type WriteOutcome =
  | { status: "final"; row: TxRow; children: TxRow[] }
  | { status: "accepted"; transactionId: string; state: string };

/** What a wallet holding `balance` can still spend beside its reservations. */
function availableWei(balance: bigint, reserved: bigint): bigint {
  return balance > reserved ? balance - reserved : 0n;
}

/**
 * Times a write is judged by its org's policy before it gives up (503): each new judging follows
 * a change of the policy committed while the write was being checked.
 */
const MAX_JUDGINGS = 3;

/** Gas assumed per call when the node cannot estimate because the wallet is short of coin. */
const FALLBACK_GAS = 300_000n;

/**
 * Executes a write the same way for every endpoint:
 * 1. `Idempotency-Key` seen before → the first request's transaction (409 if the body differs);
 * 2. the organization's policy allows it (403 `Policy: ...`; `policy/policy-check.ts`, checked
 *    again when it is recorded), and its wallet's signer backend can sign (503 `HSM unavailable: ...` while its PKCS#11 token is
 *    known to be away);
 * 3. `prepare` validates and builds the calls (against the read model, the registry cache and
 *    the chain); a call of a shape seen before gets its gas limit from earlier receipts
 *    (`engine/gas-book.ts`), any other is gas-estimated and its estimate teaches the book (a
 *    revert fails fast with `failedWriteError(<reason>)`: 500 `Transaction failed: <reason>`,
 *    or 400 `Listing not active` for a lost race; nothing signed, no nonce used; in a batch the
 *    item fails). A learned limit that runs out of gas is estimated again and sent once more;
 *    a revert that slips past the checks is decoded from its receipt to the same words;
 * 4. checked and recorded in one statement (`TxStore.record`): the org's queue is under its
 *    bound (429 otherwise), and the wallet holds value + gas × fee cap for everything plus what
 *    live writes reserved (400 `Insufficient funds: need ..., wallet has ... (short ...)`); the
 *    fee cap is twice the current quote (room for re-pricing), never above
 *    `MAX_FEE_PER_GAS_GWEI`. While the head's balance is slow to come, the last block's stands
 *    in (`HeadReads.balanceAt`); a refusal is decided on the head's. The org's writes held in
 *    this process meanwhile count against it (`engine/unrecorded-writes.ts`). The rows, the
 *    idempotency record and `alongside` are written in one database transaction, or nothing
 *    is, and the wallet's sequencer is woken;
 * 5. sync: wait for the receipt(s) and for the indexer to apply their block, so reads show the
 *    write; after SYNC_WRITE_DEADLINE_SECONDS (default 30 s), or if the wait itself fails, 202 with the transaction id (never
 *    a bare error once the write is recorded). `Prefer: respond-async`: 202 at once.
 */
export async function executeWrite(ctx: AppContext, request: WriteRequest): Promise<WriteOutcome> {
  // Admission first (`writes/admission.ts`): over a bound, 429 at once, nothing read or recorded.
  // A write approved in the console was admitted when it was requested.
  const ticket =
    request.approved === undefined
      ? ctx.admission.enter(request.orgId, request.arrival)
      : undefined;
  let written: { txId: string; justRecorded: boolean };
  try {
    const { hash, accepted } = requestHashes(request.kind.kind, request.body, ctx.config);
    if (request.idempotencyKey !== undefined) {
      const existing = await findIdempotent(
        ctx.database,
        request.orgId,
        request.idempotencyKey,
        accepted,
      );
      if (existing !== undefined) {
        ticket?.release();
        return await outcomeOf(ctx, existing, request.respondAsync);
      }
      // After a restore: a write mined after the backup, rebuilt from its tag on chain.
      if (await ctx.engine.recovery.recoveredKeys()) {
        const recovered = await findRecoveredIdempotent(
          ctx.database,
          request.orgId,
          idempotencyKeyTags(request.orgId, request.idempotencyKey, ctx.config),
          accepted,
        );
        if (recovered !== undefined) {
          ticket?.release();
          return await outcomeOf(ctx, recovered, request.respondAsync);
        }
      }
    }
    // Judged by the org's policy as this process keeps it; the record statement finds that
    // policy still in force, or the write is judged again on a fresh read (`policy-changed`).
    for (let judging = 1; ; judging++) {
      let judged: string | null | undefined;
      if (request.approved === undefined) {
        const ruled = await holdIfRuled(ctx, request, judging > 1);
        if (ruled.heldId !== undefined)
          return { status: "accepted", transactionId: ruled.heldId, state: "pending_approval" };
        judged = ruled.judged;
      }
      const recorded = await checkAndRecord(ctx, request, hash, accepted, judged);
      if (recorded !== "policy-changed") {
        written = recorded;
        break;
      }
      forgetPolicy(ctx.database, request.orgId);
      if (judging >= MAX_JUDGINGS)
        throw new UnavailableError(
          "The organization's policy is changing; retry the write in a moment",
        );
    }
  } finally {
    ticket?.release();
  }
  ticket?.countRecorded(written.justRecorded);
  return outcomeOf(ctx, written.txId, request.respondAsync, written.justRecorded);
}

/**
 * Steps 2-4 of `executeWrite`: the write's checks and its rows. Returns the id of the write
 * recorded, or of the one that holds the same `Idempotency-Key` (a race lost to it), or
 * `policy-changed` when the org's policy is no longer `policyJudged` (nothing recorded).
 */
async function checkAndRecord(
  ctx: AppContext,
  request: WriteRequest,
  hash: string,
  accepted: readonly string[],
  policyJudged: string | null | undefined,
): Promise<{ txId: string; justRecorded: boolean } | "policy-changed"> {
  const engine = ctx.engine;
  // The wallet is read once per process (it never changes); the fee quote and the balance are
  // asked for while the write is prepared against it: one wait instead of three.
  const wallet = await engine.store.walletOf(request.orgId);
  if (wallet === undefined) throw new NotFoundError("Wallet not found");
  // After a restore, nothing is recorded for a wallet until its rows agree with the chain.
  await engine.recovery.ensureReconciled(wallet.id);
  const question = policyQuestionOf(request);
  const policyChecked = policyApplies(question)
    ? precheckWrite(ctx.database, request.orgId, question)
    : undefined;
  const quoteRead = engine.fees.quoteForCheck();
  const funds = engine.head.balanceAt(wallet.address);
  const prepared = request.kind.prepare(ctx, wallet, request.body);
  // Settled below in order, or not at all when an earlier check refuses: never unhandled.
  for (const pending of [policyChecked, quoteRead, funds.read, funds.head, prepared])
    pending?.catch(() => {});

  // The organization's policy refuses before anything is estimated, recorded or signed.
  await policyChecked;
  await ctx.signers.ensureAvailable(wallet.signerBackend);
  const calls = await prepared;
  const batch = request.kind.kind === "batch-issue";

  // A call of a shape the gas book has seen gets its limit from earlier receipts, without asking
  // the node; the others are estimated together.
  const callKind = batch ? "issue-asset" : request.kind.kind;
  const [quote, balance, estimates] = await Promise.all([
    quoteRead,
    funds.read,
    Promise.all(
      calls.map(async (call): Promise<{ limit?: bigint; gas?: bigint; revert?: string }> => {
        const shape = { kind: callKind, to: call.to, data: call.data };
        const limit = engine.gas.limitFor(shape);
        if (limit !== undefined) return { limit };
        try {
          const gas = await engine.reader.estimateGas({ from: wallet.address, ...call });
          // The shape is known from now on, here and in the other processes; the first receipt
          // that uses more raises it.
          if (gas !== undefined) engine.gas.learn(shape, gas);
          return { gas };
        } catch (error) {
          if (!(error instanceof TransactionFailedError)) throw error;
          // The state changed after `prepare` checked it: a batch item fails alone; a single
          // write answers the error its row would show (a lost race is the check's 400).
          if (batch) return { revert: error.reason };
          throw failedWriteError(error.reason, error);
        }
      }),
    ),
  ]);

  const margin = BigInt(100 + engine.sequencer.options.gasMarginPercent);
  const ceiling = ctx.config.maxFeePerGasWei;
  const feeCap = reservedFeeCap(quote, ceiling);
  let need = 0n;
  const gasLimits = estimates.map((e, i) => {
    if (e.revert !== undefined) return undefined;
    const limit = e.limit ?? (e.gas === undefined ? FALLBACK_GAS : (e.gas * margin) / 100n);
    need += calls[i]!.value + limit * feeCap;
    return e.limit ?? (e.gas === undefined ? undefined : limit);
  });
  const keyTag =
    request.idempotencyKey === undefined
      ? undefined
      : idempotencyKeyTags(request.orgId, request.idempotencyKey, ctx.config)[0];
  const rows = writeRows(request, wallet, hash, keyTag, feeCap, calls, estimates, gasLimits);
  const claim =
    request.idempotencyKey === undefined
      ? undefined
      : {
          orgId: request.orgId,
          key: request.idempotencyKey,
          requestHash: hash,
          ttlMs: WRITE_LIMITS.idempotencyTtlMs,
        };

  // Checked and recorded in one statement (`TxStore.record`). A refusal for funds on the last
  // block's balance (standing in while the head's was slow) is decided again on the head's own
  // balance: coin just received counts.
  let verdict = await recordChecked(
    ctx,
    request,
    { wallet, rows, needWei: need, balance, policyJudged },
    claim,
  );
  if (verdict.outcome === "short") {
    const head = await funds.head;
    verdict = await recordChecked(
      ctx,
      request,
      { wallet, rows, needWei: need, balance: head, policyJudged },
      claim,
    );
    if (verdict.outcome === "short") {
      const symbol = ctx.config.coinSymbol;
      const available = availableWei(head.value, verdict.reservedWei);
      throw new ValidationError(
        `Insufficient funds: need ${formatCoinShort(need, true)} ${symbol}, wallet has ${formatCoinShort(available)} ${symbol} (short ${formatCoinShort(need - available, true)})`,
      );
    }
  }
  switch (verdict.outcome) {
    case "recorded":
      engine.submit(wallet.id);
      return { txId: rows[0]!.id, justRecorded: true };
    case "no-wallet":
      throw new NotFoundError("Wallet not found");
    case "policy-changed":
      return "policy-changed";
    case "queue-full":
      throw new RateLimitError(5, "Too many queued write transactions for this organization");
    case "key-taken": {
      // Another request with the same key won the race.
      const existing = await findIdempotent(
        ctx.database,
        request.orgId,
        request.idempotencyKey!,
        accepted,
      );
      if (existing === undefined)
        throw new ValidationError("Idempotency-Key is being reused too early; retry later");
      return { txId: existing, justRecorded: false };
    }
  }
}

/**
 * One checked record of a write (`TxStore.record`). The org's writes held in this process count
 * against it where the statement does not see their rows (`engine/unrecorded-writes.ts`): they
 * are read, and this write held, in the same synchronous step as the statement is sent.
 */
async function recordChecked(
  ctx: AppContext,
  request: WriteRequest,
  write: Pick<CheckedWrite, "wallet" | "rows" | "needWei" | "balance" | "policyJudged">,
  claim: IdempotencyClaim | undefined,
): Promise<RecordVerdict> {
  const ledger = ctx.engine.unrecorded;
  const held = ledger.held(request.orgId);
  const release = ledger.hold(request.orgId, write.rows[0]!.id, write.needWei);
  try {
    return await ctx.engine.store.record(
      { ...write, held, maxLiveRoots: WRITE_LIMITS.maxQueuedPerOrg },
      claim,
      alongsideOf(request),
    );
  } finally {
    release();
  }
}

/**
 * Holds the write when an approval rule of the organization's policy says so (after the
 * policy's own refusals: a destination off an allowlist is 403, not held): nothing is prepared
 * or signed; its id. Otherwise the digest of the policy it was judged by, for the record
 * statement to find still in force (`CheckedWrite.policyJudged`). Judged by the policy this process keeps, or
 * read now when `fresh`; a write about to be held is judged again on a fresh read, so a rule
 * removed a moment ago in another process holds nothing.
 */
async function holdIfRuled(
  ctx: AppContext,
  request: WriteRequest,
  fresh: boolean,
): Promise<{ heldId?: string; judged: string | null }> {
  const question = policyQuestionOf(request);
  const needs = async (readFresh: boolean) => {
    const stored = await readPolicyForWrite(ctx.database, request.orgId, { fresh: readFresh });
    const needed =
      stored.policy.approvals.length === 0
        ? 0
        : approvalsNeeded(stored.policy, {
            ...question,
            priceWei: request.kind.priceOf?.(request.body),
          });
    return { needed, judged: stored.digest };
  };
  let ruled = await needs(fresh);
  if (ruled.needed > 0 && !fresh) ruled = await needs(true);
  if (ruled.needed === 0) return { judged: ruled.judged };
  if (policyApplies(question)) await precheckWrite(ctx.database, request.orgId, question);
  const heldId = await holdWrite(
    ctx.database,
    {
      id: newTxId(),
      orgId: request.orgId,
      kind: request.kind.kind,
      body: request.body,
      idempotencyKey: request.idempotencyKey,
      requestedBy: request.origin.actor,
      requesterUserId: request.requesterUserId,
      approvers: ruled.needed,
      expiresInMs: approvalExpiryMsOf(ctx.config),
    },
    request.origin,
  );
  return { heldId, judged: ruled.judged };
}

/** What the organization's policy is asked about a write: its kind and its destinations. */
function policyQuestionOf(request: WriteRequest): PolicyQuestion {
  const destination = request.kind.destinationOf?.(request.body);
  return {
    kind: request.kind.kind,
    destinations: destination === undefined ? [] : [destination],
  };
}

/**
 * What is written in the transaction that records the write: the organization's policy checked
 * again under its lock (`enforceAtRecord`: a refusal rolls the rows back), and a management
 * act's audit row (`WriteKindModule.audit`), naming the transaction. The act and its row are
 * stored together or not at all; a replay of the same `Idempotency-Key` records nothing, so it
 * appends nothing.
 */
function alongsideOf(
  request: WriteRequest,
): ((tx: DbTransaction, transactionId: string) => Promise<unknown>) | undefined {
  const entry = request.kind.audit?.(request.body);
  const question = policyQuestionOf(request);
  const judged = policyApplies(question);
  if (entry === undefined && !judged) return undefined;
  return async (tx, transactionId) => {
    if (judged) await enforceAtRecord(tx, request.orgId, question);
    if (entry !== undefined)
      await appendWriteAudit(tx, request.origin, request.orgId, entry, transactionId);
  };
}

/**
 * The rows of a write: its root, and a batch's items after it (items a revert failed, failed).
 * Each call's data carries the write's tag (`engine/write-tag.ts`): its id, kind, a batch item's
 * parent, and the keyed hash of its `Idempotency-Key`.
 */
function writeRows(
  request: WriteRequest,
  wallet: OrgWallet,
  hash: string,
  keyTag: string | undefined,
  feeCap: bigint,
  calls: readonly PreparedCall[],
  estimates: ReadonlyArray<{ revert?: string }>,
  gasLimits: ReadonlyArray<bigint | undefined>,
): RecordedRow[] {
  const rootId = request.approved?.transactionId ?? newTxId();
  const base = {
    orgId: request.orgId,
    walletId: wallet.id,
    mode: request.respondAsync ? "async" : "sync",
    requestHash: hash,
    fromAddress: wallet.address,
    feeCap: feeCap.toString(),
    // From acceptance, by this process's clock; the engine compares it with the database's.
    validUntil:
      request.validForSeconds === undefined
        ? null
        : new Date(Date.now() + request.validForSeconds * 1_000),
  };
  // The key is told in the write's outcome event (`engine/outcome-events.ts`): on its root row.
  const idempotencyKey = request.idempotencyKey ?? null;
  const key: Pick<WriteTag, "key"> =
    keyTag === undefined ? {} : { key: { keyTag, requestTag: hash.slice(0, 8) } };
  if (request.kind.kind !== "batch-issue") {
    const call = calls[0]!;
    return [
      {
        ...base,
        id: rootId,
        idempotencyKey,
        kind: request.kind.kind,
        toAddress: call.to,
        data: tagCallData(call.data, { kind: request.kind.kind, id: rootId, ...key }),
        value: call.value.toString(),
        gasLimit: gasLimits[0]?.toString() ?? null,
        context: call.context,
      },
    ];
  }
  const rows: RecordedRow[] = [
    {
      ...base,
      id: rootId,
      idempotencyKey,
      kind: "batch-issue",
      context: { wallet: wallet.address, owner: wallet.address },
    },
  ];
  calls.forEach((call, index) => {
    const revert = estimates[index]!.revert;
    const id = newTxId();
    rows.push({
      ...base,
      id,
      parentId: rootId,
      itemIndex: index,
      kind: "issue-asset",
      toAddress: call.to,
      data: tagCallData(call.data, {
        kind: "issue-asset",
        id,
        parent: { id: rootId, index },
        ...key,
      }),
      value: call.value.toString(),
      gasLimit: gasLimits[index]?.toString() ?? null,
      context: call.context,
      ...(revert === undefined
        ? {}
        : { state: "failed" as const, error: revert, errorKind: "revert", failedAt: new Date() }),
    });
  });
  return rows;
}

/**
 * Waits for a recorded write (sync) or reports its current state (async). The write is recorded:
 * whatever goes wrong while waiting, the answer is 202 with its id, never an error that invites
 * a blind retry.
 */
async function outcomeOf(
  ctx: AppContext,
  txId: string,
  respondAsync: boolean,
  justRecorded = false,
): Promise<WriteOutcome> {
  const engine = ctx.engine;
  const accepted = (state: string): WriteOutcome => ({
    status: "accepted",
    transactionId: txId,
    state,
  });
  // Just recorded and answered at once: it is queued (no read needed to say so).
  if (respondAsync && justRecorded) return accepted("queued");
  let row: TxRow | undefined;
  try {
    row = respondAsync
      ? await engine.store.get(txId)
      : await engine.waitForFinal(txId, ctx.admission.syncDeadlineMs(), justRecorded);
  } catch (error) {
    ctx.logger.warn({ err: error, txId }, "waiting for a recorded write failed; answering 202");
    return accepted("queued");
  }
  if (row === undefined) throw new Error(`transaction ${txId} not found`);
  if (respondAsync || !isFinal(row.state)) return accepted(row.state);
  try {
    const children = isGroupRow(row) ? await engine.store.children(row.id) : [];
    return { status: "final", row, children };
  } catch (error) {
    ctx.logger.warn({ err: error, txId }, "reading a final write failed; answering 202");
    return accepted(row.state);
  }
}
