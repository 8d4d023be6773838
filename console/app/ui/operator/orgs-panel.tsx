"use client";

import Link from "next/link";
import { useState } from "react";
import type { OrgOverview, RegisteredOrg } from "../../lib/types";
import { useDebouncedField } from "../../lib/use-debounced-field";
import { usePagedResource } from "../../lib/use-paged-resource";
import { useUrlFields } from "../../lib/use-url-fields";
import { SecretOnce } from "../common/secret-once";
import { actionsColumn, hexColumn, tagsColumn, timeColumn, valueColumn } from "../common/columns";
import { DataTable, type Column } from "../common/data-table";
import { Panel } from "../common/panel";
import { TextField } from "../common/text-field";
import { OrgStatus } from "./org-status";
import { RegisterOrgForm } from "./register-org-form";

/**
 * Operator: organizations (searched by name, in pages), onboarding (first API key shown once),
 * and a link to each one's controls (plan, suspension, keys). The search and the page are in the
 * URL (`useUrlFields`); the search is written there a moment after the last key.
 */
export function OrgsPanel() {
  const search = useUrlFields({ q: "" });
  const query = useDebouncedField(search.field("q"));
  const orgs = usePagedResource("/api/enterprise/orgs", search.values, 20, search.pages);
  const [registered, setRegistered] = useState<RegisteredOrg | undefined>(undefined);
  const columns: ReadonlyArray<Column<OrgOverview>> = [
    {
      id: "name",
      header: "Name",
      cell: (org) => (
        <>
          {org.orgName}
          <div className="muted">
            <code>{org.orgId}</code>
          </div>
        </>
      ),
      sortValue: (org) => org.orgName,
    },
    valueColumn("plan", "Plan", (org) => org.plan),
    {
      id: "status",
      header: "Status",
      cell: (org) => <OrgStatus org={org} />,
      sortValue: (org) => (org.suspended ? 1 : 0),
    },
    {
      id: "keys",
      header: "Active keys",
      cell: (org) => org.keyCount,
      sortValue: (org) => org.keyCount,
    },
    tagsColumn("scopes", "Scopes", (org) => org.scopes),
    hexColumn("wallet", "Wallet", (org) => org.walletAddress),
    timeColumn("created", "Created", (org) => org.createdAt),
    actionsColumn((org) => (
      <Link
        className="button button-small"
        href={`/operator/orgs/detail/?orgId=${encodeURIComponent(org.orgId)}`}
      >
        Manage
      </Link>
    )),
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
          orgs.firstPage();
          orgs.reload();
        }}
      />
      <Panel title="Organizations">
        <div className="filters">
          <TextField id="org-search" label="Search organizations" {...query} />
        </div>
        <DataTable
          caption="Organizations"
          resource={orgs}
          rowKey={(org) => org.orgId}
          rowTestId="org-row"
          empty={{
            title: search.values.q === "" ? "No organizations yet" : "No organization matches",
          }}
          pagination={orgs.pagination}
          columns={columns}
        />
      </Panel>
    </div>
  );
}
