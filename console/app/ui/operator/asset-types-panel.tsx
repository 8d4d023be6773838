"use client";

import { useState } from "react";
import { api } from "../../lib/api";
import { formatTime, shortHex } from "../../lib/format";
import { assetTypeSchema } from "../../lib/schemas";
import type { AssetType } from "../../lib/types";
import { useResource } from "../../lib/use-resource";
import { useValidatedSubmit } from "../../lib/use-validated-submit";
import { DataTable } from "../common/data-table";
import { FieldError, Notice } from "../common/states";

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
        <DataTable
          caption="Asset types"
          rows={types.data?.data}
          loading={types.loading}
          error={types.error}
          onRetry={types.reload}
          rowKey={(type) => type.typeId}
          rowTestId="asset-type-row"
          empty={{ title: "No asset types indexed yet" }}
          columns={[
            {
              id: "index",
              header: "#",
              cell: (type) => type.index,
              sortValue: (type) => type.index,
            },
            {
              id: "name",
              header: "Name",
              cell: (type) => type.name,
              sortValue: (type) => type.name,
            },
            {
              id: "registrar",
              header: "Registrar",
              cell: (type) => <code title={type.registrar}>{shortHex(type.registrar)}</code>,
              copy: (type) => type.registrar,
            },
            {
              id: "registered",
              header: "Registered",
              cell: (type) => formatTime(type.registeredAt),
              sortValue: (type) => type.registeredAt,
            },
          ]}
        />
      </section>
    </div>
  );
}
