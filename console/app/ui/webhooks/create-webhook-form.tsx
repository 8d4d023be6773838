"use client";

import { useState } from "react";
import { api } from "../../lib/api";
import { WEBHOOK_EVENTS } from "../../lib/constants";
import { createWebhookSchema } from "../../lib/schemas";
import type { CreatedWebhook } from "../../lib/types";
import { useValidatedSubmit } from "../../lib/use-validated-submit";
import { CheckboxGroup } from "../common/checkbox-group";
import { FieldError, Notice } from "../common/states";

/** New webhook: URL, events, and a secret the relayer generates or one you give. */
export function CreateWebhookForm({ onCreated }: { onCreated: (hook: CreatedWebhook) => void }) {
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>([...WEBHOOK_EVENTS]);
  const [secretMode, setSecretMode] = useState<"generate" | "given">("generate");
  const [secret, setSecret] = useState("");
  const { errors, failure, busy, submit } = useValidatedSubmit(
    createWebhookSchema,
    async (data) => {
      const body = {
        url: data.url,
        events: data.events,
        ...(data.secretMode === "given" ? { secret: data.secret } : {}),
      };
      onCreated(await api<CreatedWebhook>("POST", "/api/enterprise/webhooks", body));
      setUrl("");
      setSecret("");
    },
  );

  return (
    <form
      className="card form"
      onSubmit={(event) => {
        event.preventDefault();
        void submit({ url, events, secretMode, secret });
      }}
      noValidate
    >
      <h2>Register a webhook</h2>
      <label htmlFor="webhook-url">URL</label>
      <input
        id="webhook-url"
        type="url"
        placeholder="https://example.com/hooks/rwa"
        value={url}
        onChange={(event) => setUrl(event.target.value)}
        aria-invalid={errors.url !== undefined}
        aria-describedby="webhook-url-error"
      />
      <FieldError id="webhook-url-error" message={errors.url} />
      <CheckboxGroup
        legend="Events"
        name="events"
        options={WEBHOOK_EVENTS}
        selected={events}
        onChange={setEvents}
        errorId="webhook-events-error"
        error={errors.events}
      />
      <fieldset>
        <legend>Signing secret</legend>
        <label className="check">
          <input
            type="radio"
            name="secretMode"
            checked={secretMode === "generate"}
            onChange={() => setSecretMode("generate")}
          />
          Generate one for me
        </label>
        <label className="check">
          <input
            type="radio"
            name="secretMode"
            checked={secretMode === "given"}
            onChange={() => setSecretMode("given")}
          />
          Use my own
        </label>
      </fieldset>
      {secretMode === "given" && (
        <>
          <label htmlFor="webhook-secret">Secret (16 to 256 characters)</label>
          <input
            id="webhook-secret"
            type="password"
            autoComplete="off"
            value={secret}
            onChange={(event) => setSecret(event.target.value)}
            aria-invalid={errors.secret !== undefined}
            aria-describedby="webhook-secret-error"
          />
          <FieldError id="webhook-secret-error" message={errors.secret} />
        </>
      )}
      <button type="submit" className="button button-primary" disabled={busy}>
        {busy ? "Registering…" : "Register webhook"}
      </button>
      {failure !== undefined && <Notice kind="error">{failure}</Notice>}
    </form>
  );
}
