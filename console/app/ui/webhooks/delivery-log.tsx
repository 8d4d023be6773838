"use client";

import { useState } from "react";
import { api, messageOf } from "../../lib/api";
import { formatTime, shortHex } from "../../lib/format";
import type { Delivery, DeliveryLog as DeliveryLogData } from "../../lib/types";
import { useResource } from "../../lib/use-resource";
import { EmptyState, ErrorState, Loading, Notice } from "../common/states";

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
      {log.loading && log.data === undefined ? (
        <Loading label="Loading deliveries…" />
      ) : log.error !== undefined ? (
        <ErrorState message={log.error} onRetry={log.reload} />
      ) : log.data === undefined || log.data.deliveries.length === 0 ? (
        <EmptyState title="No deliveries yet">
          <p className="muted">Events appear here once on-chain activity matches this webhook.</p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Event</th>
                <th>Status</th>
                <th>HTTP</th>
                <th>Latency</th>
                <th>Attempts</th>
                <th>Tx</th>
                <th>Created</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {log.data.deliveries.map((delivery) => (
                <tr key={delivery.deliveryId} data-testid="delivery-row">
                  <td>{delivery.event}</td>
                  <td>
                    <span
                      className={`status ${delivery.status === "delivered" ? "status-ok" : delivery.status === "failed" ? "status-bad" : "status-off"}`}
                    >
                      {delivery.status}
                    </span>
                  </td>
                  <td>{delivery.lastStatusCode ?? "—"}</td>
                  <td>{latencyOf(delivery)}</td>
                  <td>{delivery.attempts}</td>
                  <td title={delivery.txHash ?? undefined}>
                    {delivery.txHash === null ? "—" : <code>{shortHex(delivery.txHash)}</code>}
                  </td>
                  <td>{formatTime(delivery.createdAt)}</td>
                  <td>
                    <button
                      type="button"
                      className="button button-small"
                      onClick={() =>
                        void act("Redelivery queued.", () =>
                          api(
                            "POST",
                            `${path}/deliveries/${encodeURIComponent(delivery.deliveryId)}/redeliver`,
                          ),
                        )
                      }
                    >
                      Redeliver
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
