"use client";

import Link from "next/link";
import { useEffect } from "react";
import { TRANSACTION_STATES } from "../../lib/constants";
import { shortHex } from "../../lib/format";
import type { TransactionSummary } from "../../lib/types";
import { usePagedResource } from "../../lib/use-paged-resource";
import { useUrlFields } from "../../lib/use-url-fields";
import { hexColumn, statusColumn, timeColumn, valueColumn } from "../common/columns";
import { DataTable, type Column } from "../common/data-table";
import { SelectField } from "../common/select-field";
import { LIVE_REFRESH_MS, LIVE_STATES, STATUS_TONES } from "./tx-states";

const KINDS = [
  "issue-asset",
  "batch-issue",
  "transfer",
  "list",
  "buy",
  "delist",
  "register-asset-type",
];
const PAGE_SIZE = 20;

/**
 * The organization's writes with their live state: refreshed every 1.5 s while any row shown is
 * still queued or sent; filters by state and kind; a failure's reason in words. The filters and
 * the page are in the URL (`useUrlFields`); each write's id opens its timeline.
 */
export function TransactionsPanel() {
  const filters = useUrlFields(
    { status: "", kind: "" },
    { status: TRANSACTION_STATES, kind: KINDS },
  );
  const { status, kind } = filters.values;
  const txs = usePagedResource("/api/v1/transactions", filters.values, PAGE_SIZE, filters.pages);
  const live = txs.data?.some((t) => LIVE_STATES.includes(t.status)) ?? false;
  const { reload } = txs;

  useEffect(() => {
    if (!live) return;
    const timer = setInterval(reload, LIVE_REFRESH_MS);
    return () => clearInterval(timer);
  }, [live, reload]);

  const columns: ReadonlyArray<Column<TransactionSummary>> = [
    valueColumn("kind", "Kind", (t) => t.kind),
    statusColumn("status", "State", (t) => t.status, STATUS_TONES, "tx-status"),
    {
      id: "reason",
      header: "Reason",
      cell: (t) => (t.reason === null ? <span className="muted">—</span> : t.reason),
      wrap: true,
    },
    hexColumn("hash", "Tx hash", (t) => t.txHash, { keep: 4 }),
    {
      id: "block",
      header: "Block",
      cell: (t) => t.blockNumber ?? "—",
      sortValue: (t) => t.blockNumber ?? 0,
    },
    timeColumn("created", "Created", (t) => t.createdAt),
    {
      id: "id",
      header: "Id",
      cell: (t) => (
        <Link
          href={`/transactions/detail/?id=${t.transactionId}`}
          title="Open this write's timeline"
          data-testid="tx-detail-link"
        >
          <code title={t.transactionId}>{shortHex(t.transactionId, 4)}</code>
        </Link>
      ),
      copy: (t) => t.transactionId,
    },
  ];

  return (
    <section className="card">
      <div className="filters">
        <SelectField
          id="tx-status"
          label="State"
          options={TRANSACTION_STATES}
          any
          {...filters.field("status")}
        />
        <SelectField id="tx-kind" label="Kind" options={KINDS} any {...filters.field("kind")} />
        <span className="muted" aria-live="polite">
          {live ? "Updating live…" : ""}
        </span>
      </div>
      <DataTable
        caption="Transactions"
        resource={txs}
        rowKey={(t) => t.transactionId}
        rowTestId={(t) => `tx-row-${t.transactionId}`}
        empty={{
          title: status === "" && kind === "" ? "No transactions yet" : "No transactions match",
          hint: <p className="muted">Every write (issue, list, buy, transfer…) appears here.</p>,
        }}
        pagination={txs.pagination}
        columns={columns}
      />
    </section>
  );
}
