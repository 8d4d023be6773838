"use client";

import { useState } from "react";

/**
 * A destructive action in two steps: the first click asks, the second (on "Yes, …") acts.
 * Inline rather than `window.confirm` so it is styled, accessible and keyboard friendly.
 */
export function ConfirmButton({
  label,
  confirmLabel,
  question,
  onConfirm,
  disabled = false,
}: {
  label: string;
  confirmLabel: string;
  question: string;
  onConfirm: () => Promise<void> | void;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!asking) {
    return (
      <button
        type="button"
        className="button button-danger button-small"
        disabled={disabled}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={question}>
      <span className="confirm-question">{question}</span>
      <button
        type="button"
        className="button button-danger button-small"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          void Promise.resolve(onConfirm()).finally(() => {
            setBusy(false);
            setAsking(false);
          });
        }}
      >
        {busy ? "Working…" : confirmLabel}
      </button>
      <button type="button" className="button button-small" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
