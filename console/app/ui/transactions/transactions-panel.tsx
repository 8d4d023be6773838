"use client";

import { useEffect } from "react";
import { TRANSACTION_STATES } from "../../lib/constants";
import type { TransactionSummary, TxStatus } from "../../lib/types";
import { useFields } from "../../lib/use-fields";
import { usePagedResource } from "../../lib/use-paged-resource";
import { hexColumn, statusColumn, timeColumn, valueColumn } from "../common/columns";
import { DataTable, type Column } from "../common/data-table";
import { SelectField } from "../common/select-field";
import type { Tone } from "../common/states";

const KINDS = [
  "issue-asset",
  "batch-issue",
  "transfer",
  "list",
  "buy",
  "delist",
  "register-asset-type",
];
const LIVE: readonly TxStatus[] = ["queued", "sent"];
const REFRESH_MS = 1500;

const STATUS_TONES: Readonly<Record<TxStatus, Tone>> = {
  queued: "off",
  sent: "live",
  confirmed: "ok",
  failed: "bad",
  replaced: "bad",
};

/**
 * The organization's writes with their live state: refreshed every 1.5 s while any row shown is
 * still queued or sent; filters by state and kind; a failure's reason in words.
 */
export function TransactionsPanel() {
  const filters = useFields({ status: "", kind: "" });
  const { status, kind } = filters.values;
  const txs = usePagedResource<TransactionSummary>("/api/v1/transactions", filters.values, 20);
  const live = txs.data?.some((t) => LIVE.includes(t.status)) ?? false;
  const { reload } = txs;

  useEffect(() => {
    if (!live) return;
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [live, reload]);

  const columns: ReadonlyArray<Column<TransactionSummary>> = [
    valueColumn("kind", "Kind", (t) => t.kind),
    statusColumn("status", "State", (t) => t.status, STATUS_TONES, "tx-status"),
    {
      id: "reason",
      header: "Reason",
      cell: (t) => (t.reason === null ? <span className="muted">—</span> : t.reason),
    },
    hexColumn("hash", "Tx hash", (t) => t.txHash),
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
      cell: (t) => <code>{t.transactionId}</code>,
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
