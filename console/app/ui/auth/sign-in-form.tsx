"use client";

import { messageOf } from "../../lib/api";
import { personSignInSchema, signInSchema } from "../../lib/schemas";
import { useSession } from "../../lib/session";
import { useForm } from "../../lib/use-form";
import { FormCard } from "../common/form-card";
import { Notice } from "../common/states";
import { TextField } from "../common/text-field";

/**
 * The sign-in screen. People sign in with their email, password and the current code of their
 * authenticator app (docs/people.md). Below, for machines' owners and operator staff until they
 * are people too: an API key or the admin token, exchanged once for the session cookie.
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
      title="With an API key or the admin token"
      intro={
        <p className="muted">
          Operator staff: the admin token (<code>ent_admin_…</code>). For development, an
          organization&apos;s API key (<code>rwa_live_…</code>). It is exchanged for a session
          cookie and not kept in the browser.
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
