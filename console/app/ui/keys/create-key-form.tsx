"use client";

import { useState } from "react";
import { api } from "../../lib/api";
import { grantableScopes } from "../../lib/format";
import { createKeySchema } from "../../lib/schemas";
import type { CreatedApiKey } from "../../lib/types";
import { useValidatedSubmit } from "../../lib/use-validated-submit";
import { CheckboxGroup } from "../common/checkbox-group";
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
  const { errors, failure, busy, submit } = useValidatedSubmit(createKeySchema, async (data) => {
    const body = { scopes: data.scopes, ...(data.label === "" ? {} : { label: data.label }) };
    onCreated(await api<CreatedApiKey>("POST", "/api/enterprise/keys", body));
    setLabel("");
  });

  return (
    <form
      className="card form"
      onSubmit={(event) => {
        event.preventDefault();
        void submit({ label, scopes });
      }}
      noValidate
    >
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
      <CheckboxGroup
        legend="Scopes"
        name="scopes"
        options={offered}
        selected={scopes}
        onChange={setScopes}
        errorId="key-scopes-error"
        error={errors.scopes}
      />
      <button type="submit" className="button button-primary" disabled={busy}>
        {busy ? "Creating…" : "Create key"}
      </button>
      {failure !== undefined && <Notice kind="error">{failure}</Notice>}
    </form>
  );
}
