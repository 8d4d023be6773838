"use client";

import { useState } from "react";
import { messageOf } from "../../lib/api";
import { personSignInSchema, signInSchema } from "../../lib/schemas";
import { useSession } from "../../lib/session";
import { useForm } from "../../lib/use-form";
import { FormCard } from "../common/form-card";
import { Notice } from "../common/states";
import { TextField } from "../common/text-field";

/**
 * The sign-in screen. People sign in with their email, password and the current code of their
 * authenticator app, or with a passkey (docs/people.md). Below, for development only
 * (CONSOLE_KEY_SIGN_IN=on): an API key or the admin token, exchanged once for the session cookie.
 *
 * Secrets are cleared from the fields before the request leaves, whatever it answers; afterwards
 * the browser holds only an httpOnly session cookie (no localStorage, no sessionStorage, no
 * readable cookie).
 */
export function SignInForm() {
  const { state } = useSession();
  return (
    <div className="signin-stack">
      <PersonSignInForm
        notice={
          state.status === "signed-out" && state.reason !== undefined ? state.reason : undefined
        }
      />
      <PasskeySignIn />
      <CredentialSignInForm />
    </div>
  );
}

function PersonSignInForm({ notice }: { notice: string | undefined }) {
  const { signIn } = useSession();
  const form = useForm(
    personSignInSchema,
    { email: "", password: "", totp: "" },
    (data) => signIn(data),
    {
      describeError: (error) => {
        const message = messageOf(error);
        return message === "Invalid credentials"
          ? "Email, password or code not accepted. Codes are used once: wait for the next one."
          : message;
      },
    },
  );
  return (
    <FormCard
      page
      title="Sign in to the RWA Console"
      intro={
        <>
          <p className="muted">
            With the email and password of your invitation, and the 6-digit code your authenticator
            app shows now.
          </p>
          {notice !== undefined && <Notice kind="ok">{notice}</Notice>}
        </>
      }
      form={form}
      submit="Sign in"
      busy="Signing in…"
      onSubmit={() => {
        const { values } = form;
        form.set("password", "");
        form.set("totp", "");
        return form.submit(values);
      }}
    >
      <TextField
        id="email"
        label="Email"
        type="email"
        autoComplete="username"
        {...form.field("email")}
      />
      <TextField
        id="password"
        label="Password"
        type="password"
        autoComplete="current-password"
        {...form.field("password")}
      />
      <TextField
        id="totp"
        label="Authenticator code"
        inputMode="numeric"
        autoComplete="one-time-code"
        spellCheck={false}
        {...form.field("totp")}
      />
    </FormCard>
  );
}

/**
 * Sign-in with a passkey alone (docs/people.md "Passkeys"): the browser asks the authenticator
 * (with its PIN or biometric) for a passkey of this site.
 */
function PasskeySignIn() {
  const { signInWithPasskey } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  return (
    <section className="card">
      <h2>With a passkey</h2>
      <p className="muted">
        A passkey you added on your Account screen: your device asks for its PIN or fingerprint.
      </p>
      <button
        type="button"
        className="button"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          setError(undefined);
          signInWithPasskey()
            .catch((cause: unknown) => {
              const message = messageOf(cause);
              setError(
                message === "Invalid credentials"
                  ? "That passkey was not accepted."
                  : `No passkey sign-in: ${message}`,
              );
            })
            .finally(() => setBusy(false));
        }}
      >
        {busy ? "Waiting for the passkey…" : "Sign in with a passkey"}
      </button>
      {error !== undefined && <Notice kind="error">{error}</Notice>}
    </section>
  );
}

function CredentialSignInForm() {
  const { signIn } = useSession();
  const form = useForm(signInSchema, { credential: "" }, (data) => signIn(data.credential), {
    describeError: (error) =>
      messageOf(error) === "Unauthorized"
        ? "That key or token was not accepted (unknown, revoked or mistyped)."
        : messageOf(error),
  });
  return (
    <FormCard
      title="Development: with an API key or the admin token"
      intro={
        <p className="muted">
          Only where the relayer runs with <code>CONSOLE_KEY_SIGN_IN=on</code> (never in
          production): an organization&apos;s API key (<code>rwa_live_…</code>) or the admin token (
          <code>ent_admin_…</code>), exchanged for a session cookie and not kept in the browser.
          Everyone else signs in as a person above.
        </p>
      }
      form={form}
      submit="Sign in with the key"
      busy="Signing in…"
      onSubmit={() => {
        const { values } = form;
        // Cleared before the request, whatever happens next: the value must not linger in the DOM.
        form.set("credential", "");
        return form.submit(values);
      }}
    >
      <TextField
        id="credential"
        label="API key or admin token"
        type="password"
        autoComplete="off"
        spellCheck={false}
        {...form.field("credential")}
      />
    </FormCard>
  );
}
