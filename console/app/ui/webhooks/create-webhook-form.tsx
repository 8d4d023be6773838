"use client";

import { useState } from "react";
import { api, messageOf } from "../../lib/api";
import { WEBHOOK_EVENTS } from "../../lib/constants";
import { createWebhookSchema, fieldErrors } from "../../lib/schemas";
import type { CreatedWebhook } from "../../lib/types";
import { FieldError, Notice } from "../common/states";

/** New webhook: URL, events, and a secret the relayer generates or one you give. */
export function CreateWebhookForm({ onCreated }: { onCreated: (hook: CreatedWebhook) => void }) {
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>([...WEBHOOK_EVENTS]);
  const [secretMode, setSecretMode] = useState<"generate" | "given">("generate");
  const [secret, setSecret] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  const toggle = (event: string) =>
    setEvents((current) =>
      current.includes(event) ? current.filter((e) => e !== event) : [...current, event],
    );

  const submit = async (formEvent: React.FormEvent) => {
    formEvent.preventDefault();
    setFailure(undefined);
    const parsed = createWebhookSchema.safeParse({ url, events, secretMode, secret });
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const body = {
        url: parsed.data.url,
        events: parsed.data.events,
        ...(parsed.data.secretMode === "given" ? { secret: parsed.data.secret } : {}),
      };
      onCreated(await api<CreatedWebhook>("POST", "/api/enterprise/webhooks", body));
      setUrl("");
      setSecret("");
    } catch (error) {
      setFailure(messageOf(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card form" onSubmit={(event) => void submit(event)} noValidate>
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
      <fieldset>
        <legend>Events</legend>
        <div className="checks">
          {WEBHOOK_EVENTS.map((event) => (
            <label key={event} className="check">
              <input
                type="checkbox"
                name="events"
                value={event}
                checked={events.includes(event)}
                onChange={() => toggle(event)}
              />
              {event}
            </label>
          ))}
        </div>
      </fieldset>
      <FieldError id="webhook-events-error" message={errors.events} />
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
