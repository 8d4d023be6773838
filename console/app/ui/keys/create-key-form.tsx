"use client";

import { api } from "../../lib/api";
import { grantableScopes } from "../../lib/format";
import { createKeySchema } from "../../lib/schemas";
import type { CreatedApiKey } from "../../lib/types";
import { useForm } from "../../lib/use-form";
import { CheckboxGroup } from "../common/checkbox-group";
import { FormCard } from "../common/form-card";
import { TextField } from "../common/text-field";

/** New key form: label, scopes (only those the signed-in session holds) and an optional expiry. */
export function CreateKeyForm({
  heldScopes,
  onCreated,
}: {
  heldScopes: string[];
  onCreated: (key: CreatedApiKey) => void;
}) {
  const offered = grantableScopes(heldScopes);
  const initial = { label: "", scopes: offered.includes("read") ? ["read"] : [], expiresAt: "" };
  const form = useForm(
    createKeySchema,
    initial,
    async (data) => {
      const body = {
        scopes: data.scopes,
        ...(data.label === "" ? {} : { label: data.label }),
        ...(data.expiresAt === undefined ? {} : { expiresAt: data.expiresAt }),
      };
      onCreated(await api<CreatedApiKey>("POST", "/api/enterprise/keys", body));
    },
    { resetOnSuccess: ["label", "expiresAt"] },
  );

  return (
    <FormCard title="Create a key" form={form} submit="Create key" busy="Creating…">
      <TextField id="key-label" label="Label (optional)" {...form.field("label")} />
      <CheckboxGroup id="key-scopes" legend="Scopes" options={offered} {...form.field("scopes")} />
      <TextField
        id="key-expires"
        label="Expires (optional)"
        type="datetime-local"
        {...form.field("expiresAt")}
      />
    </FormCard>
  );
}
