"use client";

import { useState } from "react";
import { api, messageOf } from "../../lib/api";
import { useSignedIn } from "../../lib/session";
import type { ResponseBody } from "../../lib/types";
import { useResource } from "../../lib/use-resource";
import { Notice, ResourceView } from "../common/states";
import { RadioGroup } from "../common/radio-group";

type PolicyAnswer = ResponseBody<"/api/enterprise/policy", "get">;
type Policy = Omit<PolicyAnswer, "updatedAt">;
type Entry = Policy["destinations"]["allowlist"][number];

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * The organization's policy (docs/policy.md). Everyone signed in reads it; a signed-in owner edits
 * a draft here (destinations, the allowlist, the daily transfer limit) and saves it whole. The
 * relayer validates again and audits the change; what it refuses is shown as it words it.
 */
export function PolicyPanel() {
  const session = useSignedIn();
  const canEdit = session.person?.role === "owner";
  const policy = useResource("policy", () => api<PolicyAnswer>("GET", "/api/enterprise/policy"));
  // Kept here, not in the editor: saving reloads the policy, and the editor starts afresh from it.
  const [saved, setSaved] = useState<string | undefined>(undefined);
  return (
    <>
      <ResourceView resource={policy} loadingLabel="Loading the policy…">
        {(answer) => (
          <PolicyEditor
            key={answer.updatedAt ?? "default"}
            answer={answer}
            canEdit={canEdit}
            onEdit={() => setSaved(undefined)}
            onSaved={() => {
              setSaved("Policy saved. It applies to writes recorded from now on.");
              policy.reload();
            }}
          />
        )}
      </ResourceView>
      {saved !== undefined && <Notice kind="ok">{saved}</Notice>}
    </>
  );
}

function PolicyEditor({
  answer,
  canEdit,
  onEdit,
  onSaved,
}: {
  answer: PolicyAnswer;
  canEdit: boolean;
  /** A save starts: the last save's notice goes. */
  onEdit: () => void;
  onSaved: () => void;
}) {
  const [mode, setMode] = useState(answer.destinations.mode);
  const [allowlist, setAllowlist] = useState<Entry[]>(answer.destinations.allowlist);
  const [limit, setLimit] = useState(
    answer.limits.transfersPerDay === null ? "" : String(answer.limits.transfersPerDay),
  );
  const [address, setAddress] = useState("");
  const [label, setLabel] = useState("");
  const [entryError, setEntryError] = useState<string | undefined>(undefined);
  const [result, setResult] = useState<{ kind: "ok" | "error"; text: string } | undefined>();
  const [busy, setBusy] = useState(false);

  const add = () => {
    const trimmed = { address: address.trim(), label: label.trim() };
    if (!ADDRESS.test(trimmed.address)) return setEntryError("Enter a 0x address (40 hex digits)");
    if (trimmed.label === "" || trimmed.label.length > 100)
      return setEntryError("Give it a label of 1 to 100 characters");
    if (allowlist.some((e) => e.address.toLowerCase() === trimmed.address.toLowerCase()))
      return setEntryError("That address is already on the list");
    setEntryError(undefined);
    setAllowlist([...allowlist, trimmed]);
    setAddress("");
    setLabel("");
  };

  const save = async () => {
    setResult(undefined);
    onEdit();
    const perDay = limit.trim() === "" ? null : Number(limit.trim());
    if (perDay !== null && (!Number.isInteger(perDay) || perDay < 0)) {
      setResult({ kind: "error", text: "Transfers per day: a whole number from 0, or empty" });
      return;
    }
    const body: Policy = {
      destinations: { mode, allowlist },
      limits: { transfersPerDay: perDay },
      approvals: answer.approvals,
    };
    setBusy(true);
    try {
      await api("PUT", "/api/enterprise/policy", body);
      onSaved();
    } catch (error) {
      setResult({ kind: "error", text: messageOf(error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="stack">
      <section className="card form" aria-label="Destinations">
        <h2>Destinations</h2>
        <RadioGroup
          legend="Where transfers may go"
          name="destinations-mode"
          options={[
            { value: "any", label: "Any address" },
            { value: "allowlist", label: "Only the addresses on the allowlist" },
          ]}
          value={mode}
          onChange={(value) => canEdit && setMode(value === "allowlist" ? "allowlist" : "any")}
        />
        <table aria-label="Allowlist">
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Address</th>
              {canEdit && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {allowlist.length === 0 && (
              <tr>
                <td colSpan={canEdit ? 3 : 2} className="muted">
                  No addresses yet
                </td>
              </tr>
            )}
            {allowlist.map((entry) => (
              <tr key={entry.address} data-testid={`allowlist-${entry.address.toLowerCase()}`}>
                <td>{entry.label}</td>
                <td>
                  <code>{entry.address}</code>
                </td>
                {canEdit && (
                  <td>
                    <button
                      type="button"
                      className="button button-small"
                      onClick={() => setAllowlist(allowlist.filter((e) => e !== entry))}
                    >
                      Remove
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
        {canEdit && (
          <div className="inline-form" role="group" aria-label="Add an address">
            <label htmlFor="allow-address">Address</label>
            <input
              id="allow-address"
              value={address}
              spellCheck={false}
              onChange={(event) => setAddress(event.target.value)}
            />
            <label htmlFor="allow-label">Label</label>
            <input
              id="allow-label"
              value={label}
              onChange={(event) => setLabel(event.target.value)}
            />
            <button type="button" className="button" onClick={add}>
              Add to the allowlist
            </button>
            {entryError !== undefined && <Notice kind="error">{entryError}</Notice>}
          </div>
        )}
      </section>
      <section className="card form" aria-label="Limits">
        <h2>Limits</h2>
        <label htmlFor="transfers-per-day">
          Transfers per day (rolling 24 hours; empty: no limit)
        </label>
        <input
          id="transfers-per-day"
          inputMode="numeric"
          value={limit}
          disabled={!canEdit}
          onChange={(event) => setLimit(event.target.value)}
        />
      </section>
      <section className="card form" aria-label="Approvals">
        <h2>Approvals</h2>
        {answer.approvals.length === 0 ? (
          <p className="muted">No write waits for an approval.</p>
        ) : (
          <pre>{JSON.stringify(answer.approvals, null, 2)}</pre>
        )}
      </section>
      <p className="muted">
        {answer.updatedAt === null
          ? "The default policy applies: no restriction."
          : `Last changed ${new Date(answer.updatedAt).toLocaleString()}.`}
      </p>
      {canEdit ? (
        <button
          type="button"
          className="button button-primary"
          disabled={busy}
          onClick={() => void save()}
        >
          {busy ? "Saving…" : "Save policy"}
        </button>
      ) : (
        <Notice kind="ok">Only an owner signed in as a person can change the policy.</Notice>
      )}
      {result !== undefined && <Notice kind={result.kind}>{result.text}</Notice>}
    </div>
  );
}
