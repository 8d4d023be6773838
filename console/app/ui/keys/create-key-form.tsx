"use client";

import { useState } from "react";
import { api, messageOf } from "../../lib/api";
import { grantableScopes } from "../../lib/format";
import { createKeySchema, fieldErrors } from "../../lib/schemas";
import type { CreatedApiKey } from "../../lib/types";
import { FieldError, Notice } from "../common/states";

/** New key form: label and scopes (only those the signed-in session holds). */
export function CreateKeyForm({
  heldScopes,
  onCreated,
}: {
  heldScopes: string[];
  onCreated: (key: CreatedApiKey) => void;
}) {
  const offered = grantableScopes(heldScopes);
  const [label, setLabel] = useState("");
  const [scopes, setScopes] = useState<string[]>(offered.includes("read") ? ["read"] : []);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  const toggle = (scope: string) =>
    setScopes((current) =>
      current.includes(scope) ? current.filter((s) => s !== scope) : [...current, scope],
    );

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setFailure(undefined);
    const parsed = createKeySchema.safeParse({ label, scopes });
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const body = {
        scopes: parsed.data.scopes,
        ...(parsed.data.label === "" ? {} : { label: parsed.data.label }),
      };
      onCreated(await api<CreatedApiKey>("POST", "/api/enterprise/keys", body));
      setLabel("");
    } catch (error) {
      setFailure(messageOf(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card form" onSubmit={(event) => void submit(event)} noValidate>
      <h2>Create a key</h2>
      <label htmlFor="key-label">Label (optional)</label>
      <input
        id="key-label"
        value={label}
        onChange={(event) => setLabel(event.target.value)}
        aria-invalid={errors.label !== undefined}
        aria-describedby="key-label-error"
      />
      <FieldError id="key-label-error" message={errors.label} />
      <fieldset aria-describedby="key-scopes-error">
        <legend>Scopes</legend>
        <div className="checks">
          {offered.map((scope) => (
            <label key={scope} className="check">
              <input
                type="checkbox"
                name="scopes"
                value={scope}
                checked={scopes.includes(scope)}
                onChange={() => toggle(scope)}
              />
              {scope}
            </label>
          ))}
        </div>
      </fieldset>
      <FieldError id="key-scopes-error" message={errors.scopes} />
      <button type="submit" className="button button-primary" disabled={busy}>
        {busy ? "Creating…" : "Create key"}
      </button>
      {failure !== undefined && <Notice kind="error">{failure}</Notice>}
    </form>
  );
}
