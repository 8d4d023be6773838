"use client";

import { useState } from "react";
import { messageOf } from "./api";

/** What the last action beside a list said: done (in words) or why it failed. */
export type ActionResult = { kind: "ok" | "error"; text: string } | undefined;

/**
 * Actions beside a list (revoke a key, delete a webhook, redeliver): `run` clears the last
 * result, runs the request, then says `doneText` and calls `onDone` (to reload the list), or says
 * why it failed. Show `result` with `ResultNotice` (or a `Panel`'s `notice`).
 *
 * @example
 * const action = useAction(keys.reload);
 * <ConfirmButton onConfirm={() => action.run("Key revoked.", () => api("DELETE", path))} />
 */
export function useAction(onDone: () => void) {
  const [result, setResult] = useState<ActionResult>(undefined);
  const run = async (doneText: string, action: () => Promise<unknown>) => {
    setResult(undefined);
    try {
      await action();
      setResult({ kind: "ok", text: doneText });
      onDone();
    } catch (error) {
      setResult({ kind: "error", text: messageOf(error) });
    }
  };
  return { result, run };
}
