"use client";

import { api, query } from "../../lib/api";
import type { ResponseBody, WalletHistory } from "../../lib/types";
import { useResource } from "../../lib/use-resource";
import { Chart } from "../common/chart";

const shortDay = (day: string) => day.slice(5); // MM-DD
const shortTime = (iso: string) => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, {
        month: "short",
        day: "numeric",
        hour: "2-digit",
        minute: "2-digit",
      });
};
const hourOf = (iso: string) => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
};

/**
 * The three trends of an organization: wallet balance over 30 days, assets issued per day, and
 * webhook deliveries per hour by outcome. Each comes from its own read endpoint.
 */
export function ActivityCharts() {
  const history = useResource("wallet-history", () =>
    api<WalletHistory>("GET", `/api/enterprise/wallet/history${query({ days: 30 })}`),
  );
  const issuances = useResource("issuances", () =>
    api<ResponseBody<"/api/enterprise/stats/issuances", "get">>(
      "GET",
      `/api/enterprise/stats/issuances${query({ days: 30 })}`,
    ),
  );
  const deliveries = useResource("delivery-stats", () =>
    api<ResponseBody<"/api/enterprise/stats/deliveries", "get">>(
      "GET",
      `/api/enterprise/stats/deliveries${query({ hours: 24 })}`,
    ),
  );

  const balancePoints = history.data?.points.map((p) => ({ at: p.at, balance: Number(p.balance) }));
  const issued = issuances.data?.data.reduce((sum, d) => sum + d.issued, 0) ?? 0;
  const totals = (deliveries.data?.data ?? []).reduce(
    (sum, h) => ({
      succeeded: sum.succeeded + h.succeeded,
      retried: sum.retried + h.retried,
      failed: sum.failed + h.failed,
    }),
    { succeeded: 0, retried: 0, failed: 0 },
  );

  return (
    <div className="chart-grid">
      <Chart
        title="Wallet balance"
        kind="area"
        testId="chart-balance"
        data={balancePoints}
        xKey="at"
        series={[{ key: "balance", label: "Balance (COIN)", color: "#1d4ed8" }]}
        formatX={shortTime}
        formatY={(v) => `${Number(v.toPrecision(6))}`}
        summary={
          history.data === undefined
            ? "Balance over the last 30 days."
            : `Now ${history.data.balance} COIN; ${history.data.points.length - 2} recorded change${history.data.points.length === 3 ? "" : "s"} in the last 30 days.`
        }
        resource={history}
      />
      <Chart
        title="Issuances per day"
        kind="bar"
        testId="chart-issuances"
        data={issuances.data?.data}
        xKey="day"
        series={[{ key: "issued", label: "Assets issued", color: "#047857" }]}
        formatX={shortDay}
        summary={`${issued} asset${issued === 1 ? "" : "s"} issued in the last 30 days (UTC days).`}
        resource={issuances}
      />
      <Chart
        title="Webhook deliveries per hour"
        kind="bar"
        testId="chart-deliveries"
        data={deliveries.data?.data}
        xKey="hour"
        series={[
          { key: "succeeded", label: "Succeeded", color: "#047857" },
          { key: "retried", label: "Retried", color: "#b45309" },
          { key: "failed", label: "Failed", color: "#b91c1c" },
        ]}
        formatX={hourOf}
        summary={`Last 24 hours: ${totals.succeeded} succeeded, ${totals.retried} retried, ${totals.failed} failed.`}
        resource={deliveries}
      />
    </div>
  );
}
