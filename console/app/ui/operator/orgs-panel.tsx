"use client";

import { useState } from "react";
import { api } from "../../lib/api";
import type { OperatorOrg, RegisteredOrg } from "../../lib/types";
import { useResource } from "../../lib/use-resource";
import { SecretOnce } from "../common/secret-once";
import { hexColumn, tagsColumn, timeColumn, valueColumn } from "../common/columns";
import { DataTable, type Column } from "../common/data-table";
import { Panel } from "../common/panel";
import { RegisterOrgForm } from "./register-org-form";

/** Operator: every organization, and onboarding (first API key shown once). */
export function OrgsPanel() {
  const orgs = useResource("orgs", async () => {
    const { orgs } = await api<{ orgs: OperatorOrg[] }>("GET", "/api/console/operator/orgs");
    return orgs;
  });
  const [registered, setRegistered] = useState<RegisteredOrg | undefined>(undefined);
  const columns: ReadonlyArray<Column<OperatorOrg>> = [
    {
      id: "name",
      header: "Name",
      cell: (org) => (
        <>
          {org.name}
          <div className="muted">
            <code>{org.orgId}</code>
          </div>
        </>
      ),
      sortValue: (org) => org.name,
    },
    valueColumn("plan", "Plan", (org) => org.plan),
    tagsColumn("scopes", "Scopes", (org) => org.scopes),
    hexColumn("wallet", "Wallet", (org) => org.walletAddress),
    timeColumn("created", "Created", (org) => org.createdAt),
  ];

  return (
    <div className="stack">
      {registered !== undefined && (
        <SecretOnce
          title={`First API key of ${registered.orgName} (wallet ${registered.walletAddress})`}
          value={registered.apiKey}
          onDismiss={() => setRegistered(undefined)}
        />
      )}
      <RegisterOrgForm
        onRegistered={(org) => {
          setRegistered(org);
          orgs.reload();
        }}
      />
      <Panel title="Organizations">
        <DataTable
          caption="Organizations"
          resource={orgs}
          rowKey={(org) => org.orgId}
          rowTestId="org-row"
          empty={{ title: "No organizations yet" }}
          columns={columns}
        />
      </Panel>
    </div>
  );
}
