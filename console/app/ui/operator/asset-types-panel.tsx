"use client";

import { api } from "../../lib/api";
import { shortHex } from "../../lib/format";
import { assetTypeSchema } from "../../lib/schemas";
import type { AssetType, ResponseBody } from "../../lib/types";
import { useResource } from "../../lib/use-resource";
import { useForm } from "../../lib/use-form";
import { hexColumn, timeColumn, valueColumn } from "../common/columns";
import { DataTable, type Column } from "../common/data-table";
import { FormCard } from "../common/form-card";
import { Panel } from "../common/panel";
import { TextField } from "../common/text-field";

/** Operator: registered asset types, and registering one from the operator account. */
export function AssetTypesPanel() {
  const types = useResource("asset-types", async () => {
    const { data } = await api<ResponseBody<"/api/v1/asset-types", "get">>(
      "GET",
      "/api/v1/asset-types",
    );
    return data;
  });
  const form = useForm(
    assetTypeSchema,
    { typeName: "" },
    async (data) => {
      const done = await api<ResponseBody<"/api/console/operator/asset-types", "post">>(
        "POST",
        "/api/console/operator/asset-types",
        data,
      );
      // The list comes from the indexer, which follows the chain within a few seconds.
      setTimeout(types.reload, 1500);
      return `Registered “${done.typeName}” (tx ${shortHex(done.txHash)}). It shows in the list once indexed.`;
    },
    { resetOnSuccess: ["typeName"] },
  );

  const columns: ReadonlyArray<Column<AssetType>> = [
    valueColumn("index", "#", (type) => type.index),
    valueColumn("name", "Name", (type) => type.name),
    hexColumn("registrar", "Registrar", (type) => type.registrar),
    timeColumn("registered", "Registered", (type) => type.registeredAt),
  ];

  return (
    <div className="stack">
      <FormCard
        title="Register an asset type"
        intro={
          <p className="muted">
            Names are exact and case-sensitive; any organization can then use it.
          </p>
        }
        form={form}
        submit="Register type"
        busy="Registering (waiting for the chain)…"
      >
        <TextField id="type-name" label="Type name" {...form.field("typeName")} />
      </FormCard>
      <Panel title="Asset types" refresh={types}>
        <DataTable
          caption="Asset types"
          resource={types}
          rowKey={(type) => type.typeId}
          rowTestId="asset-type-row"
          empty={{ title: "No asset types indexed yet" }}
          columns={columns}
        />
      </Panel>
    </div>
  );
}
