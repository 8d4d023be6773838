"use client";

import { useState } from "react";
import { messageOf } from "../../lib/api";
import { fieldErrors, signInSchema } from "../../lib/schemas";
import { useSession } from "../../lib/session";
import { FieldError, Notice } from "../common/states";

/**
 * Paste an API key (organization admins) or the admin token (operator staff). The value goes to
 * the relayer once and is cleared from the field right away; afterwards the browser holds only
 * an httpOnly session cookie (no localStorage, no sessionStorage, no readable cookie).
 */
export function SignInForm() {
  const { state, signIn } = useSession();
  const [credential, setCredential] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const parsed = signInSchema.safeParse({ credential });
    // Cleared before the request, whatever happens next: the value must not linger in the DOM.
    setCredential("");
    setFailure(undefined);
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      await signIn(parsed.data.credential);
    } catch (error) {
      setFailure(
        messageOf(error) === "Unauthorized"
          ? "That key or token was not accepted (unknown, revoked or mistyped)."
          : messageOf(error),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card signin" onSubmit={(event) => void submit(event)} noValidate>
      <h1>Sign in to the RWA Console</h1>
      <p className="muted">
        Organization admins: paste an API key (<code>rwa_live_…</code>). Operator staff: paste the
        admin token (<code>ent_admin_…</code>). It is exchanged for a session cookie and not kept in
        the browser.
      </p>
      {state.status === "signed-out" && state.reason !== undefined && (
        <Notice kind="ok">{state.reason}</Notice>
      )}
      <label htmlFor="credential">API key or admin token</label>
      <input
        id="credential"
        name="credential"
        type="password"
        autoComplete="off"
        spellCheck={false}
        value={credential}
        onChange={(event) => setCredential(event.target.value)}
        aria-invalid={errors.credential !== undefined}
        aria-describedby="credential-error"
      />
      <FieldError id="credential-error" message={errors.credential} />
      <button type="submit" className="button button-primary" disabled={busy}>
        {busy ? "Signing in…" : "Sign in"}
      </button>
      {failure !== undefined && <Notice kind="error">{failure}</Notice>}
    </form>
  );
}
