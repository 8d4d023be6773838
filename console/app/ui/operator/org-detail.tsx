"use client";

import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useState } from "react";
import { z } from "zod";
import { api } from "../../lib/api";
import { PLANS } from "../../lib/constants";
import { formatTime } from "../../lib/format";
import type { ApiKeySummary, OrgOverview, ResponseBody } from "../../lib/types";
import { useAction } from "../../lib/use-action";
import { useForm } from "../../lib/use-form";
import { useResource } from "../../lib/use-resource";
import { actionsColumn, tagsColumn, timeColumn } from "../common/columns";
import { ConfirmButton } from "../common/confirm-button";
import { DataTable, type Column } from "../common/data-table";
import { FormCard } from "../common/form-card";
import { Panel } from "../common/panel";
import { SelectField } from "../common/select-field";
import { ErrorState, Loading } from "../common/states";
import { keyStatusColumn, keyState } from "../keys/key-status";
import { OrgStatus } from "./org-status";

const planSchema = z.object({ plan: z.enum(PLANS, { error: "Choose a plan" }) });

/**
 * Operator: one organization's controls: its plan, suspension (asked twice) or resumption, and
 * its keys (shown by prefix only), any of which can be revoked (asked twice).
 */
export function OrgDetailPanel() {
  const orgId = useSearchParams().get("orgId") ?? "";
  const path = `/api/enterprise/orgs/${encodeURIComponent(orgId)}`;
  const org = useResource(`org:${orgId}`, () => api<OrgOverview>("GET", path));
  const keys = useResource(`org-keys:${orgId}`, async () => {
    const { keys } = await api<ResponseBody<"/api/enterprise/orgs/{orgId}/keys", "get">>(
      "GET",
      `${path}/keys`,
    );
    return keys;
  });
  const reloadAll = () => {
    org.reload();
    keys.reload();
  };
  const action = useAction(reloadAll);

  if (org.loading && org.data === undefined) return <Loading label="Loading the organization…" />;
  if (org.error !== undefined || org.data === undefined)
    return (
      <>
        <h1>Organization</h1>
        <ErrorState message={org.error ?? "Not found"} onRetry={org.reload} />
      </>
    );
  const o = org.data;

  const columns: ReadonlyArray<Column<ApiKeySummary>> = [
    {
      id: "label",
      header: "Label",
      cell: (key) => key.label ?? <span className="muted">—</span>,
      sortValue: (key) => key.label ?? "",
    },
    { id: "key", header: "Key", cell: (key) => <code>{key.prefix}…</code>, copy: (k) => k.keyId },
    tagsColumn("scopes", "Scopes", (key) => key.scopes),
    timeColumn("created", "Created", (key) => key.createdAt),
    timeColumn("used", "Last used", (key) => key.lastUsedAt),
    timeColumn("expires", "Expires", (key) => key.expiresAt),
    keyStatusColumn(),
    actionsColumn((key) =>
      keyState(key) === "revoked" ? null : (
        <ConfirmButton
          label="Revoke"
          confirmLabel="Yes, revoke"
          question={`Revoke ${key.label ?? key.prefix}? Calls with it will fail at once.`}
          onConfirm={() =>
            action.run(`Key ${key.label ?? key.prefix} revoked.`, () =>
              api("DELETE", `${path}/keys/${encodeURIComponent(key.keyId)}`),
            )
          }
        />
      ),
    ),
  ];

  return (
    <div className="stack">
      <p>
        <Link href="/operator/orgs/">← All organizations</Link>
      </p>
      <h1 data-testid="org-title">{o.orgName}</h1>
      <Panel title="Organization" notice={action.result}>
        <dl className="facts">
          <dt>Id</dt>
          <dd>
            <code>{o.orgId}</code>
          </dd>
          <dt>Status</dt>
          <dd>
            <OrgStatus org={o} />
            {o.suspendedAt !== null && (
              <span className="muted"> since {formatTime(o.suspendedAt)}</span>
            )}
          </dd>
          <dt>Plan</dt>
          <dd data-testid="org-plan">{o.plan}</dd>
          <dt>Wallet</dt>
          <dd>
            <code>{o.walletAddress ?? "—"}</code>
          </dd>
          <dt>Active keys</dt>
          <dd>{o.keyCount}</dd>
          <dt>Created</dt>
          <dd>{formatTime(o.createdAt)}</dd>
        </dl>
        <div className="toolbar">
          {o.suspended ? (
            <button
              type="button"
              className="button button-small button-primary"
              onClick={() =>
                void action.run(`${o.orgName} resumed; its held writes are being sent.`, () =>
                  api("PATCH", path, { suspended: false }),
                )
              }
            >
              Resume
            </button>
          ) : (
            <ConfirmButton
              label="Suspend"
              confirmLabel="Yes, suspend"
              question={`Suspend ${o.orgName}? Its keys and sessions get 403 and its queued writes wait until it is resumed.`}
              onConfirm={() =>
                action.run(`${o.orgName} suspended.`, () => api("PATCH", path, { suspended: true }))
              }
            />
          )}
        </div>
      </Panel>
      <PlanForm
        current={o.plan}
        onChange={async (plan) => {
          await api("PATCH", path, { plan });
          reloadAll();
          return `Plan changed to ${plan}; its limits apply from the next request.`;
        }}
      />
      <Panel title="API keys">
        <DataTable
          caption="API keys"
          resource={keys}
          rowKey={(key) => key.keyId}
          rowTestId={(key) => `org-key-row-${key.keyId}`}
          empty={{ title: "No keys" }}
          columns={columns}
        />
      </Panel>
    </div>
  );
}

function PlanForm({
  current,
  onChange,
}: {
  current: string;
  onChange: (plan: string) => Promise<string>;
}) {
  const form = useForm(planSchema, { plan: current }, (data) => onChange(data.plan));
  // The select follows the org's plan when it changes (this change reloaded, or one made
  // elsewhere), while the form and the message of the change just made stay: remounting the form
  // on a new plan dropped "Plan changed to ..." as soon as the reload answered.
  const [shown, setShown] = useState(current);
  if (shown !== current) {
    setShown(current);
    form.set("plan", current);
  }
  return (
    <FormCard title="Plan" form={form} submit="Change plan" busy="Changing…">
      <SelectField id="org-plan" label="Plan" options={PLANS} {...form.field("plan")} />
    </FormCard>
  );
}
