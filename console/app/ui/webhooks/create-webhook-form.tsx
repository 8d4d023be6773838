"use client";

import { api } from "../../lib/api";
import { WEBHOOK_EVENTS } from "../../lib/constants";
import { createWebhookSchema } from "../../lib/schemas";
import type { CreatedWebhook } from "../../lib/types";
import { useForm } from "../../lib/use-form";
import { CheckboxGroup } from "../common/checkbox-group";
import { FormCard } from "../common/form-card";
import { RadioGroup } from "../common/radio-group";
import { TextField } from "../common/text-field";

const SECRET_MODES = [
  { value: "generate", label: "Generate one for me" },
  { value: "given", label: "Use my own" },
];

/** New webhook: URL, events, and a secret the relayer generates or one you give. */
export function CreateWebhookForm({ onCreated }: { onCreated: (hook: CreatedWebhook) => void }) {
  const initial = {
    url: "",
    events: Array.from<string>(WEBHOOK_EVENTS),
    secretMode: "generate",
    secret: "",
  };
  const form = useForm(
    createWebhookSchema,
    initial,
    async (data) => {
      const body = {
        url: data.url,
        events: data.events,
        ...(data.secretMode === "given" ? { secret: data.secret } : {}),
      };
      onCreated(await api<CreatedWebhook>("POST", "/api/enterprise/webhooks", body));
    },
    { resetOnSuccess: ["url", "secret"] },
  );

  return (
    <FormCard title="Register a webhook" form={form} submit="Register webhook" busy="Registering…">
      <TextField
        id="webhook-url"
        label="URL"
        type="url"
        placeholder="https://example.com/hooks/rwa"
        {...form.field("url")}
      />
      <CheckboxGroup
        id="webhook-events"
        legend="Events"
        options={WEBHOOK_EVENTS}
        {...form.field("events")}
      />
      <RadioGroup legend="Signing secret" options={SECRET_MODES} {...form.field("secretMode")} />
      {form.values.secretMode === "given" && (
        <TextField
          id="webhook-secret"
          label="Secret (16 to 256 characters)"
          type="password"
          autoComplete="off"
          {...form.field("secret")}
        />
      )}
    </FormCard>
  );
}
