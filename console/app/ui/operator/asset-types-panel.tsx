"use client";

import { useState } from "react";
import { api } from "../../lib/api";
import { formatTime, shortHex } from "../../lib/format";
import { assetTypeSchema } from "../../lib/schemas";
import type { AssetType } from "../../lib/types";
import { useResource } from "../../lib/use-resource";
import { useValidatedSubmit } from "../../lib/use-validated-submit";
import { EmptyState, ErrorState, FieldError, Loading, Notice } from "../common/states";

/** Operator: registered asset types, and registering one from the operator account. */
export function AssetTypesPanel() {
  const types = useResource("asset-types", () =>
    api<{ data: AssetType[] }>("GET", "/api/v1/asset-types"),
  );
  const [typeName, setTypeName] = useState("");
  const [registered, setRegistered] = useState<string | undefined>();
  const { errors, failure, busy, submit } = useValidatedSubmit(assetTypeSchema, async (data) => {
    const done = await api<{ typeName: string; txHash: string }>(
      "POST",
      "/api/console/operator/asset-types",
      data,
    );
    setRegistered(
      `Registered “${done.typeName}” (tx ${shortHex(done.txHash)}). It shows in the list once indexed.`,
    );
    setTypeName("");
    // The list comes from the indexer, which follows the chain within a few seconds.
    setTimeout(types.reload, 1500);
  });

  return (
    <div className="stack">
      <form
        className="card form"
        onSubmit={(event) => {
          event.preventDefault();
          setRegistered(undefined);
          void submit({ typeName });
        }}
        noValidate
      >
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
        {registered !== undefined && <Notice kind="ok">{registered}</Notice>}
        {failure !== undefined && <Notice kind="error">{failure}</Notice>}
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
