"use client";

import { api } from "../../lib/api";
import { grantableScopes } from "../../lib/format";
import { createKeySchema } from "../../lib/schemas";
import type { CreatedApiKey } from "../../lib/types";
import { useForm } from "../../lib/use-form";
import { CheckboxGroup } from "../common/checkbox-group";
import { FormCard } from "../common/form-card";
import { TextField } from "../common/text-field";

/** New key form: label and scopes (only those the signed-in session holds). */
export function CreateKeyForm({
  heldScopes,
  onCreated,
}: {
  heldScopes: string[];
  onCreated: (key: CreatedApiKey) => void;
}) {
  const offered = grantableScopes(heldScopes);
  const initial = { label: "", scopes: offered.includes("read") ? ["read"] : [] };
  const form = useForm(
    createKeySchema,
    initial,
    async (data) => {
      const body = { scopes: data.scopes, ...(data.label === "" ? {} : { label: data.label }) };
      onCreated(await api<CreatedApiKey>("POST", "/api/enterprise/keys", body));
    },
    { resetOnSuccess: ["label"] },
  );

  return (
    <FormCard title="Create a key" form={form} submit="Create key" busy="Creating…">
      <TextField id="key-label" label="Label (optional)" {...form.field("label")} />
      <CheckboxGroup id="key-scopes" legend="Scopes" options={offered} {...form.field("scopes")} />
    </FormCard>
  );
}
