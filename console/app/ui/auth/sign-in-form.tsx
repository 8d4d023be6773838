"use client";

import { messageOf } from "../../lib/api";
import { signInSchema } from "../../lib/schemas";
import { useSession } from "../../lib/session";
import { useForm } from "../../lib/use-form";
import { FormCard } from "../common/form-card";
import { Notice } from "../common/states";
import { TextField } from "../common/text-field";

/**
 * Paste an API key (organization admins) or the admin token (operator staff). The value goes to
 * the relayer once and is cleared from the field right away; afterwards the browser holds only
 * an httpOnly session cookie (no localStorage, no sessionStorage, no readable cookie).
 */
export function SignInForm() {
  const { state, signIn } = useSession();
  const form = useForm(signInSchema, { credential: "" }, (data) => signIn(data.credential), {
    describeError: (error) =>
      messageOf(error) === "Unauthorized"
        ? "That key or token was not accepted (unknown, revoked or mistyped)."
        : messageOf(error),
  });

  return (
    <FormCard
      page
      title="Sign in to the RWA Console"
      intro={
        <>
          <p className="muted">
            Organization admins: paste an API key (<code>rwa_live_…</code>). Operator staff: paste
            the admin token (<code>ent_admin_…</code>). It is exchanged for a session cookie and not
            kept in the browser.
          </p>
          {state.status === "signed-out" && state.reason !== undefined && (
            <Notice kind="ok">{state.reason}</Notice>
          )}
        </>
      }
      form={form}
      submit="Sign in"
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
