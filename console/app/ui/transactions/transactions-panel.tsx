"use client";

import { useEffect, useState } from "react";
import { api, query } from "../../lib/api";
import { formatTime, shortHex } from "../../lib/format";
import type { Page, TransactionSummary, TxStatus } from "../../lib/types";
import { useCursorPages } from "../../lib/use-cursor-pages";
import { useResource } from "../../lib/use-resource";
import { DataTable } from "../common/data-table";

const STATUSES: readonly TxStatus[] = ["queued", "sent", "confirmed", "failed", "replaced"];
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

const STATUS_CLASS: Readonly<Record<TxStatus, string>> = {
  queued: "status-off",
  sent: "status-live",
  confirmed: "status-ok",
  failed: "status-bad",
  replaced: "status-bad",
};

/**
 * The organization's writes with their live state: refreshed every 1.5 s while any row shown is
 * still queued or sent; filters by state and kind; a failure's reason in words.
 */
export function TransactionsPanel() {
  const pages = useCursorPages();
  const [status, setStatus] = useState<"" | TxStatus>("");
  const [kind, setKind] = useState("");
  const path = `/api/v1/transactions${query({ status, kind, limit: 20, cursor: pages.cursor })}`;
  const txs = useResource(path, () => api<Page<TransactionSummary>>("GET", path));
  const live = txs.data?.data.some((t) => LIVE.includes(t.status)) ?? false;
  const { reload } = txs;

  useEffect(() => {
    if (!live) return;
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [live, reload]);

  return (
    <section className="card">
      <div className="filters">
        <label htmlFor="tx-status">State</label>
        <select
          id="tx-status"
          value={status}
          onChange={(event) => {
            setStatus(event.target.value as "" | TxStatus);
            pages.reset();
          }}
        >
          <option value="">All</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <label htmlFor="tx-kind">Kind</label>
        <select
          id="tx-kind"
          value={kind}
          onChange={(event) => {
            setKind(event.target.value);
            pages.reset();
          }}
        >
          <option value="">All</option>
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
        <span className="muted" aria-live="polite">
          {live ? "Updating live…" : ""}
        </span>
      </div>
      <DataTable
        caption="Transactions"
        rows={txs.data?.data}
        loading={txs.loading}
        error={txs.error}
        onRetry={txs.reload}
        rowKey={(t) => t.transactionId}
        rowTestId={(t) => `tx-row-${t.transactionId}`}
        empty={{
          title: status === "" && kind === "" ? "No transactions yet" : "No transactions match",
          hint: <p className="muted">Every write (issue, list, buy, transfer…) appears here.</p>,
        }}
        pagination={{
          page: pages.page,
          nextCursor: txs.data?.nextCursor,
          onPrevious: pages.previous,
          onNext: pages.next,
        }}
        columns={[
          { id: "kind", header: "Kind", cell: (t) => t.kind, sortValue: (t) => t.kind },
          {
            id: "status",
            header: "State",
            cell: (t) => (
              <span className={`status ${STATUS_CLASS[t.status]}`} data-testid="tx-status">
                {t.status}
              </span>
            ),
            sortValue: (t) => t.status,
          },
          {
            id: "reason",
            header: "Reason",
            cell: (t) => (t.reason === null ? <span className="muted">—</span> : t.reason),
          },
          {
            id: "hash",
            header: "Tx hash",
            cell: (t) =>
              t.txHash === null ? "—" : <code title={t.txHash}>{shortHex(t.txHash)}</code>,
            copy: (t) => t.txHash,
          },
          {
            id: "block",
            header: "Block",
            cell: (t) => t.blockNumber ?? "—",
            sortValue: (t) => t.blockNumber ?? 0,
          },
          {
            id: "created",
            header: "Created",
            cell: (t) => formatTime(t.createdAt),
            sortValue: (t) => t.createdAt,
          },
          {
            id: "id",
            header: "Id",
            cell: (t) => <code>{t.transactionId}</code>,
            copy: (t) => t.transactionId,
          },
        ]}
      />
    </section>
  );
}
