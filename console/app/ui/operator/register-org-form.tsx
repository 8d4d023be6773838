"use client";

import { useState } from "react";
import { api, messageOf } from "../../lib/api";
import { DEFAULT_ORG_SCOPES, PLANS, SCOPES } from "../../lib/constants";
import { fieldErrors, registerOrgSchema } from "../../lib/schemas";
import type { RegisteredOrg } from "../../lib/types";
import { FieldError, Notice } from "../common/states";

/** Onboard an organization (name, plan, scopes). Custom scopes need a paid plan. */
export function RegisterOrgForm({ onRegistered }: { onRegistered: (org: RegisteredOrg) => void }) {
  const [orgName, setOrgName] = useState("");
  const [plan, setPlan] = useState<(typeof PLANS)[number]>("free");
  const [scopes, setScopes] = useState<string[]>([...DEFAULT_ORG_SCOPES]);
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
    const parsed = registerOrgSchema.safeParse({ orgName, plan, scopes });
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const org = await api<RegisteredOrg>("POST", "/api/enterprise/register", {
        ...parsed.data,
        walletMode: "custodial",
      });
      onRegistered(org);
      setOrgName("");
    } catch (error) {
      setFailure(messageOf(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card form" onSubmit={(event) => void submit(event)} noValidate>
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
      <fieldset>
        <legend>
          Scopes {plan === "free" && <span className="muted">(free plan: defaults only)</span>}
        </legend>
        <div className="checks">
          {SCOPES.map((scope) => (
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
      <FieldError id="org-scopes-error" message={errors.scopes} />
      <button type="submit" className="button button-primary" disabled={busy}>
        {busy ? "Registering…" : "Register organization"}
      </button>
      {failure !== undefined && <Notice kind="error">{failure}</Notice>}
    </form>
  );
}
