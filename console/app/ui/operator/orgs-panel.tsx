"use client";

import { useState } from "react";
import { api } from "../../lib/api";
import { formatTime, shortHex } from "../../lib/format";
import type { OperatorOrg, RegisteredOrg } from "../../lib/types";
import { useResource } from "../../lib/use-resource";
import { SecretOnce } from "../common/secret-once";
import { EmptyState, ErrorState, Loading } from "../common/states";
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
        {orgs.loading && orgs.data === undefined ? (
          <Loading label="Loading organizations…" />
        ) : orgs.error !== undefined ? (
          <ErrorState message={orgs.error} onRetry={orgs.reload} />
        ) : orgs.data === undefined || orgs.data.orgs.length === 0 ? (
          <EmptyState title="No organizations yet" />
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Plan</th>
                  <th>Scopes</th>
                  <th>Wallet</th>
                  <th>Created</th>
                </tr>
              </thead>
              <tbody>
                {orgs.data.orgs.map((org) => (
                  <tr key={org.orgId} data-testid="org-row">
                    <td>
                      {org.name}
                      <div className="muted">
                        <code>{org.orgId}</code>
                      </div>
                    </td>
                    <td>{org.plan}</td>
                    <td>
                      <span className="tags">
                        {org.scopes.map((scope) => (
                          <span key={scope} className="tag">
                            {scope}
                          </span>
                        ))}
                      </span>
                    </td>
                    <td title={org.walletAddress ?? undefined}>
                      {org.walletAddress === null ? (
                        "—"
                      ) : (
                        <code>{shortHex(org.walletAddress)}</code>
                      )}
                    </td>
                    <td>{formatTime(org.createdAt)}</td>
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
