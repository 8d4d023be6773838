"use client";

import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useState } from "react";
import { api, messageOf } from "../../lib/api";
import { acceptInvitationSchema } from "../../lib/schemas";
import type { ResponseBody } from "../../lib/types";
import { useForm } from "../../lib/use-form";
import { CopyButton } from "../common/copy-button";
import { FormCard } from "../common/form-card";
import { Notice } from "../common/states";
import { TextField } from "../common/text-field";

type Accepted = ResponseBody<"/api/console/invitations/accept", "post">;

/**
 * Sets the invited person's password, then shows their authenticator app's secret once (as text
 * and as an `otpauth://` link a phone opens in its authenticator app). The token comes from the
 * link; it is sent once and not kept.
 */
export function AcceptInvitationForm() {
  const token = useSearchParams().get("token") ?? "";
  const [accepted, setAccepted] = useState<Accepted | undefined>(undefined);
  const form = useForm(
    acceptInvitationSchema,
    { password: "", confirm: "" },
    async (data) => {
      setAccepted(
        await api<Accepted>("POST", "/api/console/invitations/accept", {
          token,
          password: data.password,
        }),
      );
    },
    {
      describeError: (error) => {
        const message = messageOf(error);
        if (message === "Invitation already used")
          return "This invitation was already used. Sign in, or ask for a new invitation.";
        if (message === "Invitation expired")
          return "This invitation has expired. Ask the person who invited you for a new one.";
        if (message === "Not found") return "This invitation link is not valid. Check the link.";
        return message;
      },
    },
  );

  if (accepted !== undefined) {
    return (
      <section className="card signin" aria-label="Set up your authenticator app">
        <h1>One more step: your authenticator app</h1>
        <p>
          Your password for <strong data-testid="accepted-email">{accepted.email}</strong> is set.
          Add this account to an authenticator app (any app for time-based codes): open the link on
          your phone, or type the secret. It is shown only once.
        </p>
        <div className="secret-once" role="region" aria-label="Authenticator secret">
          <p className="secret-title">Secret</p>
          <div className="secret-row">
            <code className="secret-value" data-testid="totp-secret">
              {accepted.totp.secret}
            </code>
            <CopyButton value={accepted.totp.secret} />
          </div>
          <p>
            <a href={accepted.totp.otpauthUri}>Open in your authenticator app</a>
          </p>
        </div>
        <p>
          Then <Link href="/">sign in</Link> with your email, password and the app&apos;s code.
        </p>
      </section>
    );
  }

  if (token === "") {
    return (
      <section className="card signin">
        <h1>Accept an invitation</h1>
        <Notice kind="error">
          This link has no invitation token. Open the whole link you were given.
        </Notice>
      </section>
    );
  }

  return (
    <FormCard
      page
      title="Accept your invitation"
      intro={<p className="muted">Choose a password of 12 characters or more.</p>}
      form={form}
      submit="Set password"
      busy="Setting your password…"
    >
      <TextField
        id="new-password"
        label="Password"
        type="password"
        autoComplete="new-password"
        {...form.field("password")}
      />
      <TextField
        id="confirm-password"
        label="Password again"
        type="password"
        autoComplete="new-password"
        {...form.field("confirm")}
      />
    </FormCard>
  );
}
