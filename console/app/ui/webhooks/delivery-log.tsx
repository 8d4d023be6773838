"use client";

import { api } from "../../lib/api";
import { formatTime } from "../../lib/format";
import type { Delivery, DeliveryLog as DeliveryLogData } from "../../lib/types";
import { useAction } from "../../lib/use-action";
import { useResource } from "../../lib/use-resource";
import { actionsColumn, hexColumn, statusColumn, timeColumn, valueColumn } from "../common/columns";
import { DataTable, type Column } from "../common/data-table";
import { RefreshButton } from "../common/panel";
import { Notice, ResultNotice, type Tone } from "../common/states";

const STATUS_TONES: Readonly<Record<Delivery["status"], Tone>> = {
  pending: "off",
  retrying: "off",
  delivered: "ok",
  failed: "bad",
  cancelled: "off",
};

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
  const action = useAction(log.reload);

  const columns: ReadonlyArray<Column<Delivery>> = [
    valueColumn("event", "Event", (d) => d.event),
    statusColumn("status", "Status", (d) => d.status, STATUS_TONES),
    { id: "http", header: "HTTP", cell: (d) => d.lastStatusCode ?? "—" },
    { id: "latency", header: "Latency", cell: latencyOf },
    valueColumn("attempts", "Attempts", (d) => d.attempts),
    valueColumn("error", "Last error", (d) => d.lastError ?? "—"),
    hexColumn("tx", "Tx", (d) => d.txHash),
    timeColumn("created", "Created", (d) => d.createdAt),
    actionsColumn((d) => (
      <button
        type="button"
        className="button button-small"
        onClick={() =>
          void action.run("Redelivery queued.", () =>
            api("POST", `${path}/deliveries/${encodeURIComponent(d.deliveryId)}/redeliver`),
          )
        }
      >
        Redeliver
      </button>
    )),
  ];

  return (
    <div className="delivery-log" data-testid={`delivery-log-${webhookId}`}>
      <div className="toolbar">
        <button
          type="button"
          className="button button-small"
          onClick={() => void action.run("Test event queued.", () => api("POST", `${path}/test`))}
        >
          Send test event
        </button>
        <RefreshButton resource={log} />
      </div>
      <ResultNotice result={action.result} />
      {log.data?.enabled === false && (
        <Notice kind="error">
          Disabled: {log.data.disabledReason ?? "too many failures"}. Deliveries are not sent.
        </Notice>
      )}
      {log.data?.enabled === true && log.data.circuit.state === "open" && (
        <Notice kind="error">
          Circuit open until {formatTime(log.data.circuit.openUntil)}: {log.data.circuit.reason}.
          Deliveries are held, not dropped, and resume after it.
        </Notice>
      )}
      <DataTable
        caption="Deliveries"
        resource={{ ...log, data: log.data?.deliveries }}
        rowKey={(delivery) => delivery.deliveryId}
        rowTestId="delivery-row"
        empty={{
          title: "No deliveries yet",
          hint: (
            <p className="muted">Events appear here once on-chain activity matches this webhook.</p>
          ),
        }}
        columns={columns}
      />
    </div>
  );
}
