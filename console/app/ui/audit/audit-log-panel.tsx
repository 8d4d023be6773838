"use client";

import { api } from "../../lib/api";
import { AUDIT_ACTIONS } from "../../lib/constants";
import type { AuditRecord, ResponseBody } from "../../lib/types";
import { usePagedResource } from "../../lib/use-paged-resource";
import { useResource } from "../../lib/use-resource";
import { useUrlFields } from "../../lib/use-url-fields";
import { hexColumn, timeColumn, valueColumn } from "../common/columns";
import { DataTable, type Column } from "../common/data-table";
import { SelectField } from "../common/select-field";
import { TextField } from "../common/text-field";

const ACTIONS: readonly string[] = Object.values(AUDIT_ACTIONS).sort();
const PAGE_SIZE = 25;
/** The form of a date field's value (`<input type="date">`). */
const DATE = /^\d{4}-\d\d-\d\d$/;

/** The day after a `YYYY-MM-DD` date, so "To" includes the day it names. */
function dayAfter(date: string): string {
  const next = new Date(`${date}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}

/** The changed fields as `name: value` lines (values as JSON). */
function ChangesCell({ changes }: { changes: Record<string, unknown> }) {
  const entries = Object.entries(changes);
  if (entries.length === 0) return <span className="muted">—</span>;
  return (
    <ul className="plain-list">
      {entries.map(([name, value]) => (
        <li key={name}>
          <span className="muted">{name}:</span>{" "}
          <code>{typeof value === "string" ? value : JSON.stringify(value)}</code>
        </li>
      ))}
    </ul>
  );
}

/** The organizations that name the operator's rows: the first page of 100 (others show by id). */
const ORG_PAGE = "?limit=100";
type OrgPage = ResponseBody<"/api/enterprise/orgs", "get">;

/**
 * The audit log, newest first: what (action, its target below, changed fields), who (key id or
 * `admin`, with the address and request id below), and each row's hash. Filters by action and by day (UTC; "To"
 * includes its day), kept in the URL with the page (`useUrlFields`). The organization's own log;
 * with `operator`, every organization's, with a filter by organization and an Organization column.
 */

export function AuditLogPanel({ operator = false }: { operator?: boolean }) {
  const filters = useUrlFields(
    { action: "", from: "", to: "", orgId: "" },
    { action: ACTIONS, from: DATE, to: DATE },
  );
  const { action, from, to, orgId } = filters.values;
  const rows = usePagedResource(
    "/api/enterprise/audit-log",
    {
      action: action || undefined,
      from: from || undefined,
      to: to === "" ? undefined : dayAfter(to),
      orgId: operator && orgId !== "" ? orgId : undefined,
    },
    PAGE_SIZE,
    filters.pages,
  );
  const orgs = useResource(operator ? "audit-orgs" : "audit-no-orgs", async () =>
    operator ? (await api<OrgPage>("GET", `/api/enterprise/orgs${ORG_PAGE}`)).data : [],
  );
  const orgName = (id: string | null): string =>
    id === null ? "(service)" : (orgs.data?.find((org) => org.orgId === id)?.orgName ?? id);

  const columns: ReadonlyArray<Column<AuditRecord>> = [
    valueColumn("id", "#", (row) => Number(row.id)),
    timeColumn("at", "Time", (row) => row.at),
    {
      id: "action",
      header: "Action",
      cell: (row) => (
        <>
          {row.action}
          {row.target !== null && (
            <div className="muted">
              <code title="target">{row.target}</code>
            </div>
          )}
        </>
      ),
      sortValue: (row) => row.action,
    },
    ...(operator
      ? [valueColumn<AuditRecord>("org", "Organization", (row) => orgName(row.orgId))]
      : []),
    {
      id: "actor",
      header: "Actor",
      cell: (row) => (
        <>
          <code>{row.actor}</code>
          <div className="muted">{row.sourceAddress ?? "—"}</div>
          {row.requestId !== null && (
            <div className="muted">
              <code title={`request id ${row.requestId}`}>
                {row.requestId.length > 12 ? `${row.requestId.slice(0, 8)}…` : row.requestId}
              </code>
            </div>
          )}
        </>
      ),
      sortValue: (row) => row.actor,
    },
    { id: "changes", header: "Changes", cell: (row) => <ChangesCell changes={row.changes} /> },
    hexColumn("hash", "Hash", (row) => row.hash),
  ];

  return (
    <section className="card">
      <div className="filters">
        <SelectField
          id="audit-action"
          label="Action"
          options={ACTIONS}
          any
          {...filters.field("action")}
        />
        <TextField id="audit-from" label="From" type="date" {...filters.field("from")} />
        <TextField id="audit-to" label="To" type="date" {...filters.field("to")} />
        {operator && (
          <>
            <label htmlFor="audit-org">Organization</label>
            <select
              id="audit-org"
              value={orgId}
              onChange={(event) => filters.set("orgId", event.target.value)}
            >
              <option value="">All</option>
              {(orgs.data ?? []).map((org) => (
                <option key={org.orgId} value={org.orgId}>
                  {org.orgName}
                </option>
              ))}
            </select>
          </>
        )}
      </div>
      <DataTable
        caption="Audit log"
        resource={rows}
        rowKey={(row) => row.id}
        rowTestId={(row) => `audit-row-${row.id}`}
        empty={{
          title:
            action === "" && from === "" && to === "" && orgId === ""
              ? "No audited actions yet"
              : "No audited actions match",
          hint: (
            <p className="muted">
              Keys created or revoked, webhooks changed, organizations registered and operator
              actions appear here, each row chained to the one before by its hash.
            </p>
          ),
        }}
        pagination={rows.pagination}
        columns={columns}
      />
    </section>
  );
}
