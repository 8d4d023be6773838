"use client";

import { useState } from "react";
import { api } from "../../lib/api";
import { DEFAULT_ORG_SCOPES, PLANS, SCOPES } from "../../lib/constants";
import { registerOrgSchema } from "../../lib/schemas";
import type { RegisteredOrg } from "../../lib/types";
import { useValidatedSubmit } from "../../lib/use-validated-submit";
import { CheckboxGroup } from "../common/checkbox-group";
import { FieldError, Notice } from "../common/states";

/** Onboard an organization (name, plan, scopes). Custom scopes need a paid plan. */
export function RegisterOrgForm({ onRegistered }: { onRegistered: (org: RegisteredOrg) => void }) {
  const [orgName, setOrgName] = useState("");
  const [plan, setPlan] = useState<(typeof PLANS)[number]>("free");
  const [scopes, setScopes] = useState<string[]>([...DEFAULT_ORG_SCOPES]);
  const { errors, failure, busy, submit } = useValidatedSubmit(registerOrgSchema, async (data) => {
    onRegistered(
      await api<RegisteredOrg>("POST", "/api/enterprise/register", {
        ...data,
        walletMode: "custodial",
      }),
    );
    setOrgName("");
  });

  return (
    <form
      className="card form"
      onSubmit={(event) => {
        event.preventDefault();
        void submit({ orgName, plan, scopes });
      }}
      noValidate
    >
      <h2>Register an organization</h2>
      <label htmlFor="org-name">Name</label>
      <input
        id="org-name"
        value={orgName}
        onChange={(event) => setOrgName(event.target.value)}
        aria-invalid={errors.orgName !== undefined}
        aria-describedby="org-name-error"
      />
      <FieldError id="org-name-error" message={errors.orgName} />
      <label htmlFor="org-plan">Plan</label>
      <select
        id="org-plan"
        value={plan}
        onChange={(event) => setPlan(event.target.value as (typeof PLANS)[number])}
      >
        {PLANS.map((p) => (
          <option key={p} value={p}>
            {p}
          </option>
        ))}
      </select>
      <CheckboxGroup
        legend={
          <>Scopes {plan === "free" && <span className="muted">(free plan: defaults only)</span>}</>
        }
        name="scopes"
        options={SCOPES}
        selected={scopes}
        onChange={setScopes}
        errorId="org-scopes-error"
        error={errors.scopes}
      />
      <button type="submit" className="button button-primary" disabled={busy}>
        {busy ? "Registering…" : "Register organization"}
      </button>
      {failure !== undefined && <Notice kind="error">{failure}</Notice>}
    </form>
  );
}
