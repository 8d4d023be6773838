"use client";

import { useState } from "react";
import { messageOf } from "../../lib/api";
import { signInSchema } from "../../lib/schemas";
import { useSession } from "../../lib/session";
import { useValidatedSubmit } from "../../lib/use-validated-submit";
import { FieldError, Notice } from "../common/states";

/**
 * Paste an API key (organization admins) or the admin token (operator staff). The value goes to
 * the relayer once and is cleared from the field right away; afterwards the browser holds only
 * an httpOnly session cookie (no localStorage, no sessionStorage, no readable cookie).
 */
export function SignInForm() {
  const { state, signIn } = useSession();
  const [credential, setCredential] = useState("");
  const { errors, failure, busy, submit } = useValidatedSubmit(
    signInSchema,
    (data) => signIn(data.credential),
    (error) =>
      messageOf(error) === "Unauthorized"
        ? "That key or token was not accepted (unknown, revoked or mistyped)."
        : messageOf(error),
  );

  return (
    <form
      className="card signin"
      onSubmit={(event) => {
        event.preventDefault();
        // Cleared before the request, whatever happens next: the value must not linger in the DOM.
        setCredential("");
        void submit({ credential });
      }}
      noValidate
    >
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
