"use client";

import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useEffect } from "react";
import { api } from "../../lib/api";
import { formatTime, gweiOf } from "../../lib/format";
import type { AnyTransactionStatus, TransactionStatus } from "../../lib/types";
import { useAction } from "../../lib/use-action";
import { useResource } from "../../lib/use-resource";
import { ConfirmButton } from "../common/confirm-button";
import { Hex } from "../common/hex";
import { ErrorState, Loading, ResultNotice, StatusPill, type Tone } from "../common/states";
import { LIVE_REFRESH_MS, LIVE_STATES, STATUS_TONES } from "./tx-states";

type Attempt = TransactionStatus["attempts"][number];
type Stuck = NonNullable<TransactionStatus["stuck"]>;

/** Why the engine marked a write stuck, in words (docs/api-decisions.md "Stuck writes"). */
const STUCK_WORDS: Record<Stuck["reason"], string> = {
  "fee-cap": "at its fee cap: the chain's fees rose above what it may pay",
  "not-mined": "not mined after many blocks",
  "nonce-gap": "waiting behind an earlier write of the wallet that is not mined",
};

/**
 * The stuck marker of a write still out: the reason and since when, with the two ways out: a
 * cancel (a self-transfer on its nonce races it, in two steps) and a speed-up (its fee cap
 * raised to the current quote's and re-sent). Both go through the session, with its CSRF token.
 */
function StuckMarker({
  tx,
  stuck,
  action,
}: {
  tx: TransactionStatus;
  stuck: Stuck;
  /** The page's action: its notice stays when a speed-up or a cancel ends the marker. */
  action: ReturnType<typeof useAction>;
}) {
  const path = `/api/v1/transactions/${encodeURIComponent(tx.transactionId)}`;
  return (
    <section className="card" aria-labelledby="stuck-title" data-testid="tx-stuck">
      <h2 id="stuck-title">
        <StatusPill tone="bad" testId="tx-stuck-badge" title={stuck.reason}>
          stuck: {stuck.reason}
        </StatusPill>
      </h2>
      <p data-testid="tx-stuck-text">
        Stuck since {formatTime(stuck.since)}: {STUCK_WORDS[stuck.reason]}.
      </p>
      <span className="row-actions">
        {tx.status === "sent" && (
          <button
            type="button"
            className="button button-small button-primary"
            onClick={() =>
              void action.run("Speed-up sent: the write was re-sent with a higher fee cap.", () =>
                api("POST", `${path}/speed-up`, {}),
              )
            }
          >
            Speed up
          </button>
        )}
        <ConfirmButton
          label="Cancel"
          confirmLabel="Yes, cancel it"
          question="Cancel this write? A zero-value transfer races it on its nonce; the chain decides."
          onConfirm={() =>
            action.run("Cancel sent: the chain decides which transaction is mined.", () =>
              api("POST", `${path}/cancel`),
            )
          }
        />
      </span>
    </section>
  );
}

/** The fees an attempt offered, in the words of its transaction type. */
function feeOf(attempt: Attempt): string {
  // A legacy transaction has one gas price; the engine records it in both fee fields.
  if (attempt.type === 0) return `gas price ${gweiOf(attempt.maxFeePerGas)}`;
  return `max fee ${gweiOf(attempt.maxFeePerGas)}, priority fee ${gweiOf(attempt.maxPriorityFeePerGas)}`;
}

/** What became of one attempt, from what the engine recorded on it and the write's receipt. */
function attemptOutcome(attempt: Attempt, tx: TransactionStatus): string {
  if (tx.receipt?.hash === attempt.hash) return `Mined in block ${tx.receipt.blockNumber}.`;
  if (attempt.refused !== null) return `Refused by the chain node: ${attempt.refused}.`;
  if (attempt.outOfGas) return "Ran out of gas: the write was estimated again and sent anew.";
  if (attempt.superseded !== null)
    return `Another transaction (${attempt.superseded}) took its nonce: it will never be mined.`;
  const reorged =
    attempt.reorgedFrom === null ? "" : `Was in block ${attempt.reorgedFrom}, dropped by a reorg. `;
  if (LIVE_STATES.includes(tx.status)) return `${reorged}Waiting to be mined.`;
  return `${reorged}Not mined.`;
}

/** The colour of an attempt's step: mined, never to be mined, still possible, or left behind. */
function attemptTone(attempt: Attempt, tx: TransactionStatus): Tone {
  if (tx.receipt?.hash === attempt.hash) return "ok";
  if (attempt.refused !== null || attempt.superseded !== null) return "bad";
  return LIVE_STATES.includes(tx.status) ? "live" : "off";
}

/** One step of the timeline: when, what, and the facts below it. */
function Step({
  title,
  at,
  tone = "ok",
  testId,
  children,
}: {
  title: string;
  at: string | null;
  tone?: Tone;
  testId?: string;
  children?: React.ReactNode;
}) {
  return (
    <li className={`timeline-step timeline-${tone}`} data-testid={testId}>
      <div className="timeline-head">
        <strong>{title}</strong>
        {at !== null && <span className="muted">{formatTime(at)}</span>}
      </div>
      {children}
    </li>
  );
}

/**
 * One write's life (`/transactions/detail/?id=`): recorded, each broadcast attempt with its hash
 * and fees, the block it was mined in, confirmed, or why it failed (with the HTTP status the
 * synchronous call answered). Read again every 1.5 s while the write is still live.
 */
export function TransactionDetailPanel() {
  const id = useSearchParams().get("id") ?? "";
  const valid = /^tx_[0-9a-z]{1,40}$/.test(id);
  const tx = useResource(`tx-${id}`, () =>
    valid
      ? api<AnyTransactionStatus>("GET", `/api/v1/transactions/${id}`).then((read) => {
          // A write held for approval is not a transaction yet: no timeline to show.
          if (!("attempts" in read)) throw new Error(`Waiting for approval (${read.status}).`);
          return read;
        })
      : Promise.reject(new Error("No transaction id in the address.")),
  );
  const live = tx.data !== undefined && LIVE_STATES.includes(tx.data.status);
  const { reload } = tx;
  // The stuck marker's speed-up and cancel: held here, so that their notice stays on screen when
  // the reload it asks for shows the write no longer stuck (the marker goes; the notice does not).
  const stuckAction = useAction(reload);
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(reload, LIVE_REFRESH_MS);
    return () => clearInterval(timer);
  }, [live, reload]);

  const back = (
    <p>
      <Link href="/transactions/">← All transactions</Link>
    </p>
  );
  if (tx.loading && tx.data === undefined) return <Loading label="Loading the transaction…" />;
  if (tx.error !== undefined || tx.data === undefined)
    return (
      <div className="stack">
        {back}
        <h1>Transaction</h1>
        <ErrorState message={tx.error ?? "Not found"} onRetry={tx.reload} />
      </div>
    );
  const t = tx.data;

  return (
    <div className="stack">
      {back}
      <h1>
        Transaction <code data-testid="tx-detail-id">{t.transactionId}</code>
      </h1>
      <section className="card">
        <dl className="facts">
          <dt>Kind</dt>
          <dd>{t.kind}</dd>
          <dt>State</dt>
          <dd>
            <StatusPill tone={STATUS_TONES[t.status]} testId="tx-detail-status">
              {t.status}
            </StatusPill>
            {live && <span className="muted"> Updating live…</span>}
          </dd>
          <dt>Nonce</dt>
          <dd>{t.nonce ?? "—"}</dd>
        </dl>
      </section>
      <ResultNotice result={stuckAction.result} />
      {t.stuck !== null && live && <StuckMarker tx={t} stuck={t.stuck} action={stuckAction} />}
      <section className="card" aria-labelledby="timeline-title">
        <h2 id="timeline-title">Timeline</h2>
        <ol className="timeline">
          <Step title="Recorded" at={t.createdAt} tone="off">
            <p className="muted">Accepted and stored before anything was signed.</p>
          </Step>
          {t.attempts.map((a, index) => (
            <Step
              key={a.hash}
              title={index === 0 ? "Broadcast" : `Broadcast again (attempt ${index + 1})`}
              at={a.sentAt}
              tone={attemptTone(a, t)}
              testId="tx-attempt"
            >
              <dl className="facts">
                <dt>Hash</dt>
                <dd>
                  <Hex value={a.hash} testId="tx-attempt-hash" />
                </dd>
                <dt>Fee</dt>
                <dd data-testid="tx-attempt-fee">{feeOf(a)}</dd>
                <dt>Nonce</dt>
                <dd>{a.nonce ?? "—"}</dd>
              </dl>
              <p data-testid="tx-attempt-outcome">{attemptOutcome(a, t)}</p>
            </Step>
          ))}
          {t.receipt !== null && (
            <Step
              title={`Mined in block ${t.receipt.blockNumber}`}
              at={t.minedAt}
              tone={t.receipt.status === 1 ? "ok" : "bad"}
              testId="tx-mined"
            >
              <dl className="facts">
                <dt>Block hash</dt>
                <dd>
                  <Hex value={t.receipt.blockHash} />
                </dd>
                <dt>Gas used</dt>
                <dd>{t.receipt.gasUsed}</dd>
                <dt>Gas price paid</dt>
                <dd>{gweiOf(t.receipt.effectiveGasPrice)}</dd>
                <dt>Outcome on chain</dt>
                <dd>{t.receipt.status === 1 ? "succeeded" : "reverted"}</dd>
                <dt>Confirmations</dt>
                <dd data-testid="tx-confirmations">
                  {t.confirmations.blocksAbove ?? 0} blocks on top ({t.confirmations.required}{" "}
                  required)
                </dd>
              </dl>
              {t.status === "mined" && (
                <p className="muted">Waiting for confirmations: blocks on top of this one.</p>
              )}
            </Step>
          )}
          <FinalStep tx={t} />
        </ol>
      </section>
    </div>
  );
}

/** The last step: confirmed with its result, failed or replaced with the reason, or waiting. */
function FinalStep({ tx }: { tx: TransactionStatus }) {
  switch (tx.status) {
    case "confirmed":
      return (
        <Step title="Confirmed" at={tx.confirmedAt} testId="tx-final">
          {tx.result !== null && (
            <pre className="result" data-testid="tx-result">
              {JSON.stringify(tx.result, null, 2)}
            </pre>
          )}
        </Step>
      );
    case "failed":
    case "replaced":
      return (
        <Step
          title={tx.status === "failed" ? "Failed" : "Replaced"}
          at={tx.failedAt}
          tone="bad"
          testId="tx-final"
        >
          <p data-testid="tx-error">{tx.error ?? "No reason recorded."}</p>
          {tx.errorStatus !== null && (
            <p className="muted">The synchronous call answered HTTP {tx.errorStatus}.</p>
          )}
        </Step>
      );
    case "cancelled":
      return (
        <Step title="Cancelled" at={tx.updatedAt} tone="bad" testId="tx-final">
          <p data-testid="tx-error">
            {tx.receipt === null
              ? "Cancelled before it was sent: nothing reached the chain."
              : "Cancelled: its nonce went to a zero-value self-transfer; nothing of the write happened."}
          </p>
        </Step>
      );
    case "expired":
      return (
        <Step title="Expired" at={tx.updatedAt} tone="bad" testId="tx-final">
          <p data-testid="tx-error">
            {tx.receipt === null
              ? "Its deadline passed before it was sent: nothing reached the chain."
              : "Its deadline passed before it was mined: its nonce went to a zero-value self-transfer."}
          </p>
        </Step>
      );
    default:
      return (
        <Step
          title={tx.status === "queued" ? "Waiting to be broadcast" : "Waiting for the chain"}
          at={null}
          tone="live"
          testId="tx-final"
        >
          {tx.lastError !== null && <p>Still trying: {tx.lastError}</p>}
        </Step>
      );
  }
}
