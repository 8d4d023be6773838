"use client";

import { useState } from "react";
import { api, messageOf } from "../../lib/api";
import { formatTime, shortHex } from "../../lib/format";
import type { Delivery, DeliveryLog as DeliveryLogData } from "../../lib/types";
import { useResource } from "../../lib/use-resource";
import { DataTable } from "../common/data-table";
import { Notice } from "../common/states";

function latencyOf(delivery: Delivery): string {
  const last = delivery.attemptLog[delivery.attemptLog.length - 1];
  return last === undefined ? "—" : `${last.latencyMs} ms`;
}

/** Deliveries of one webhook with status and latency; redeliver one, or send a test event. */
export function DeliveryLog({ webhookId }: { webhookId: string }) {
  const path = `/api/enterprise/webhooks/${encodeURIComponent(webhookId)}`;
  const log = useResource(`deliveries-${webhookId}`, () =>
    api<DeliveryLogData>("GET", `${path}/deliveries?limit=50`),
  );
  const [result, setResult] = useState<{ kind: "ok" | "error"; text: string } | undefined>();

  const act = async (what: string, run: () => Promise<unknown>) => {
    setResult(undefined);
    try {
      await run();
      setResult({ kind: "ok", text: what });
      log.reload();
    } catch (error) {
      setResult({ kind: "error", text: messageOf(error) });
    }
  };

  return (
    <div className="delivery-log" data-testid={`delivery-log-${webhookId}`}>
      <div className="toolbar">
        <button
          type="button"
          className="button button-small"
          onClick={() => void act("Test event queued.", () => api("POST", `${path}/test`))}
        >
          Send test event
        </button>
        <button type="button" className="button button-small" onClick={log.reload}>
          {log.loading ? "Refreshing…" : "Refresh"}
        </button>
      </div>
      {result !== undefined && <Notice kind={result.kind}>{result.text}</Notice>}
      {log.data?.enabled === false && (
        <Notice kind="error">
          Disabled: {log.data.disabledReason ?? "too many failures"}. Deliveries are not sent.
        </Notice>
      )}
      <DataTable
        caption="Deliveries"
        rows={log.data?.deliveries}
        loading={log.loading}
        error={log.error}
        onRetry={log.reload}
        rowKey={(delivery) => delivery.deliveryId}
        rowTestId="delivery-row"
        empty={{
          title: "No deliveries yet",
          hint: (
            <p className="muted">Events appear here once on-chain activity matches this webhook.</p>
          ),
        }}
        columns={[
          { id: "event", header: "Event", cell: (d) => d.event, sortValue: (d) => d.event },
          {
            id: "status",
            header: "Status",
            cell: (d) => (
              <span
                className={`status ${d.status === "delivered" ? "status-ok" : d.status === "failed" ? "status-bad" : "status-off"}`}
              >
                {d.status}
              </span>
            ),
            sortValue: (d) => d.status,
          },
          { id: "http", header: "HTTP", cell: (d) => d.lastStatusCode ?? "—" },
          { id: "latency", header: "Latency", cell: latencyOf },
          {
            id: "attempts",
            header: "Attempts",
            cell: (d) => d.attempts,
            sortValue: (d) => d.attempts,
          },
          {
            id: "tx",
            header: "Tx",
            cell: (d) =>
              d.txHash === null ? "—" : <code title={d.txHash}>{shortHex(d.txHash)}</code>,
            copy: (d) => d.txHash,
          },
          {
            id: "created",
            header: "Created",
            cell: (d) => formatTime(d.createdAt),
            sortValue: (d) => d.createdAt,
          },
          {
            id: "actions",
            header: "Actions",
            hiddenHeader: true,
            cell: (d) => (
              <button
                type="button"
                className="button button-small"
                onClick={() =>
                  void act("Redelivery queued.", () =>
                    api("POST", `${path}/deliveries/${encodeURIComponent(d.deliveryId)}/redeliver`),
                  )
                }
              >
                Redeliver
              </button>
            ),
          },
        ]}
      />
    </div>
  );
}
