import type { WriteState } from "../../lib/use-write";
import { shortHex } from "../../lib/format";

const STEPS = ["queued", "sent", "mined", "confirmed"] as const;

/**
 * Progress of a write while it is mined: queued → sent (with its hash) → mined (waiting for its
 * confirmations, when `CONFIRMATIONS` asks for some) → confirmed, announced to
 * screen readers as it moves; a failure says why in words.
 */
export function TxProgress({ state }: { state: WriteState }) {
  if (state.phase === "idle") return null;
  if (state.phase === "failed") {
    return (
      <p className="notice notice-error" role="alert" data-testid="tx-progress">
        Failed: {state.message}
      </p>
    );
  }
  if (state.phase === "done") {
    const hash = typeof state.result.txHash === "string" ? state.result.txHash : null;
    return (
      <p className="notice notice-ok" role="status" data-testid="tx-progress">
        {state.doneText}
        {hash !== null && (
          <>
            {" "}
            Transaction <code title={hash}>{shortHex(hash)}</code>.
          </>
        )}
      </p>
    );
  }
  const status = state.phase === "submitting" ? "submitting" : state.status;
  const reached = (step: (typeof STEPS)[number]) =>
    state.phase === "pending" &&
    STEPS.indexOf(step) <= STEPS.indexOf(status as (typeof STEPS)[number]);
  return (
    <div className="tx-progress" role="status" aria-live="polite" data-testid="tx-progress">
      <span className="spinner" aria-hidden="true" />
      <ol className="steps">
        {STEPS.map((step) => (
          <li key={step} className={reached(step) ? "step step-done" : "step"}>
            {step}
          </li>
        ))}
      </ol>
      <span>
        {state.phase === "submitting"
          ? "Sending the request…"
          : status === "queued"
            ? "Waiting for its turn in the wallet's queue…"
            : status === "mined"
              ? "Mined; waiting for its confirmations…"
              : `Mining${state.hash === null ? "" : ` (${shortHex(state.hash)})`}…`}
      </span>
    </div>
  );
}
