"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { api, messageOf } from "./api";
import type { AnyTransactionStatus, TransactionStatus, TxStatus } from "./types";

/** Where a console write stands, from the click to a final state on chain. */
export type WriteState =
  | { phase: "idle" }
  | { phase: "submitting" }
  | { phase: "pending"; transactionId: string; status: TxStatus; hash: string | null }
  | {
      phase: "done";
      transactionId: string | null;
      result: Record<string, unknown>;
      /** What the screen says once it is done ("Listed."). */
      doneText: string;
    }
  | { phase: "failed"; transactionId: string | null; message: string };

const FINAL: readonly TxStatus[] = ["confirmed", "failed", "replaced", "cancelled", "expired"];
const POLL_MS = 800;

/** A fresh Idempotency-Key: a double click or a retried request never writes twice. */
function idempotencyKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return `console-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * Runs one write the way an integration would in async mode: `Prefer: respond-async` answers 202
 * with a transaction id at once, then `GET /api/v1/transactions/{id}` is polled until the write
 * is final, so the screen can show queued → sent → confirmed (or the failure in words) while the
 * transaction is mined. `onSettled` runs once it is final, to reload the data beside it. A
 * screen whose actions disappear once they succeed (list → delist) keeps one `useWrite` above
 * them, so the outcome stays on screen.
 */
export function useWrite(onSettled?: () => void) {
  const [state, setState] = useState<WriteState>({ phase: "idle" });
  const alive = useRef(true);
  const settled = useRef(onSettled);
  settled.current = onSettled;
  useEffect(
    () => () => {
      alive.current = false;
    },
    [],
  );

  const run = useCallback(async (path: string, body: unknown, doneText = "Done.") => {
    setState({ phase: "submitting" });
    try {
      const first = await api<Record<string, unknown>>("POST", path, body, {
        headers: { Prefer: "respond-async", "Idempotency-Key": idempotencyKey() },
      });
      const transactionId = typeof first.transactionId === "string" ? first.transactionId : null;
      if (transactionId === null || first.success === true) {
        setState({ phase: "done", transactionId, result: first, doneText });
        settled.current?.();
        return;
      }
      setState({
        phase: "pending",
        transactionId,
        status: (first.status as TxStatus | undefined) ?? "queued",
        hash: null,
      });
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        if (!alive.current) return;
        const read = await api<AnyTransactionStatus>(
          "GET",
          `/api/v1/transactions/${encodeURIComponent(transactionId)}`,
        );
        // Held for approval: not recorded yet, so nothing to show but that it waits.
        if (!("attempts" in read)) {
          setState({
            phase: "failed",
            transactionId,
            message: `Waiting for approval (${read.status})`,
          });
          return;
        }
        const tx: TransactionStatus = read;
        if (!FINAL.includes(tx.status)) {
          setState({
            phase: "pending",
            transactionId,
            status: tx.status,
            hash: tx.hashes.at(-1) ?? null,
          });
          continue;
        }
        if (tx.status === "confirmed" && tx.result !== null && tx.error === null) {
          setState({ phase: "done", transactionId, result: tx.result, doneText });
        } else {
          setState({
            phase: "failed",
            transactionId,
            message:
              tx.error ??
              (tx.status === "replaced"
                ? "Another transaction used this one's nonce; it will never be mined."
                : "The transaction failed."),
          });
        }
        settled.current?.();
        return;
      }
    } catch (error) {
      if (alive.current)
        setState({ phase: "failed", transactionId: null, message: messageOf(error) });
    }
  }, []);

  const reset = useCallback(() => setState({ phase: "idle" }), []);
  return { state, run, reset };
}

/** What `useWrite` returns: its state, `run` and `reset`. */
export type Write = ReturnType<typeof useWrite>;
