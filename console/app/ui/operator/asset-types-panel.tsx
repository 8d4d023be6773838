"use client";

import { useState } from "react";
import { api, messageOf } from "../../lib/api";
import { formatTime, shortHex } from "../../lib/format";
import { assetTypeSchema, fieldErrors } from "../../lib/schemas";
import type { AssetType } from "../../lib/types";
import { useResource } from "../../lib/use-resource";
import { EmptyState, ErrorState, FieldError, Loading, Notice } from "../common/states";

/** Operator: registered asset types, and registering one from the operator account. */
export function AssetTypesPanel() {
  const types = useResource("asset-types", () =>
    api<{ data: AssetType[] }>("GET", "/api/v1/asset-types"),
  );
  const [typeName, setTypeName] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [result, setResult] = useState<{ kind: "ok" | "error"; text: string } | undefined>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setResult(undefined);
    const parsed = assetTypeSchema.safeParse({ typeName });
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const registered = await api<{ typeName: string; txHash: string }>(
        "POST",
        "/api/console/operator/asset-types",
        parsed.data,
      );
      setResult({
        kind: "ok",
        text: `Registered “${registered.typeName}” (tx ${shortHex(registered.txHash)}). It shows in the list once indexed.`,
      });
      setTypeName("");
      // The list comes from the indexer, which follows the chain within a few seconds.
      setTimeout(types.reload, 1500);
    } catch (error) {
      setResult({ kind: "error", text: messageOf(error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="stack">
      <form className="card form" onSubmit={(event) => void submit(event)} noValidate>
        <h2>Register an asset type</h2>
        <p className="muted">
          Names are exact and case-sensitive; any organization can then use it.
        </p>
        <label htmlFor="type-name">Type name</label>
        <input
          id="type-name"
          value={typeName}
          onChange={(event) => setTypeName(event.target.value)}
          aria-invalid={errors.typeName !== undefined}
          aria-describedby="type-name-error"
        />
        <FieldError id="type-name-error" message={errors.typeName} />
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? "Registering (waiting for the chain)…" : "Register type"}
        </button>
        {result !== undefined && <Notice kind={result.kind}>{result.text}</Notice>}
      </form>
      <section className="card">
        <div className="toolbar">
          <h2>Asset types</h2>
          <button type="button" className="button button-small" onClick={types.reload}>
            {types.loading ? "Refreshing…" : "Refresh"}
          </button>
        </div>
        {types.loading && types.data === undefined ? (
          <Loading label="Loading asset types…" />
        ) : types.error !== undefined ? (
          <ErrorState message={types.error} onRetry={types.reload} />
        ) : types.data === undefined || types.data.data.length === 0 ? (
          <EmptyState title="No asset types indexed yet" />
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>#</th>
                  <th>Name</th>
                  <th>Registrar</th>
                  <th>Registered</th>
                </tr>
              </thead>
              <tbody>
                {types.data.data.map((type) => (
                  <tr key={type.typeId} data-testid="asset-type-row">
                    <td>{type.index}</td>
                    <td>{type.name}</td>
                    <td title={type.registrar}>
                      <code>{shortHex(type.registrar)}</code>
                    </td>
                    <td>{formatTime(type.registeredAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}
