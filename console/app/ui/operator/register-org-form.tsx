"use client";

import { api } from "../../lib/api";
import { DEFAULT_ORG_SCOPES, PLANS, SCOPES } from "../../lib/constants";
import { registerOrgSchema } from "../../lib/schemas";
import type { RegisteredOrg } from "../../lib/types";
import { useForm } from "../../lib/use-form";
import { CheckboxGroup } from "../common/checkbox-group";
import { FormCard } from "../common/form-card";
import { SelectField } from "../common/select-field";
import { TextField } from "../common/text-field";

/** Onboard an organization (name, plan, scopes). Custom scopes need a paid plan. */
export function RegisterOrgForm({ onRegistered }: { onRegistered: (org: RegisteredOrg) => void }) {
  const initial = { orgName: "", plan: "free", scopes: Array.from<string>(DEFAULT_ORG_SCOPES) };
  const form = useForm(
    registerOrgSchema,
    initial,
    async (data) => {
      const body = { ...data, walletMode: "custodial" };
      onRegistered(await api<RegisteredOrg>("POST", "/api/enterprise/register", body));
    },
    { resetOnSuccess: ["orgName"] },
  );
  const freePlan = form.values.plan === "free";

  return (
    <FormCard
      title="Register an organization"
      form={form}
      submit="Register organization"
      busy="Registering…"
    >
      <TextField id="org-name" label="Name" {...form.field("orgName")} />
      <SelectField id="org-plan" label="Plan" options={PLANS} {...form.field("plan")} />
      <CheckboxGroup
        id="org-scopes"
        legend={<>Scopes {freePlan && <span className="muted">(free plan: defaults only)</span>}</>}
        options={SCOPES}
        {...form.field("scopes")}
      />
    </FormCard>
  );
}
