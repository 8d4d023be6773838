"use client";

import { useState } from "react";
import { api } from "../../lib/api";
import { formatTime, shortHex } from "../../lib/format";
import type { OperatorOrg, RegisteredOrg } from "../../lib/types";
import { useResource } from "../../lib/use-resource";
import { SecretOnce } from "../common/secret-once";
import { DataTable } from "../common/data-table";
import { RegisterOrgForm } from "./register-org-form";

/** Operator: every organization, and onboarding (first API key shown once). */
export function OrgsPanel() {
  const orgs = useResource("orgs", () =>
    api<{ orgs: OperatorOrg[] }>("GET", "/api/console/operator/orgs"),
  );
  const [registered, setRegistered] = useState<RegisteredOrg | undefined>(undefined);
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
      <section className="card">
        <h2>Organizations</h2>
        <DataTable
          caption="Organizations"
          rows={orgs.data?.orgs}
          loading={orgs.loading}
          error={orgs.error}
          onRetry={orgs.reload}
          rowKey={(org) => org.orgId}
          rowTestId="org-row"
          empty={{ title: "No organizations yet" }}
          columns={[
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
            { id: "plan", header: "Plan", cell: (org) => org.plan, sortValue: (org) => org.plan },
            {
              id: "scopes",
              header: "Scopes",
              cell: (org) => (
                <span className="tags">
                  {org.scopes.map((scope) => (
                    <span key={scope} className="tag">
                      {scope}
                    </span>
                  ))}
                </span>
              ),
            },
            {
              id: "wallet",
              header: "Wallet",
              cell: (org) =>
                org.walletAddress === null ? (
                  "—"
                ) : (
                  <code title={org.walletAddress}>{shortHex(org.walletAddress)}</code>
                ),
              copy: (org) => org.walletAddress,
            },
            {
              id: "created",
              header: "Created",
              cell: (org) => formatTime(org.createdAt),
              sortValue: (org) => org.createdAt,
            },
          ]}
        />
      </section>
    </div>
  );
}
