"use client";

import {
  Area,
  AreaChart,
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import type { Resource } from "../../lib/use-resource";
import { EmptyState, ErrorState, Loading } from "./states";

/** One plotted value of a `Chart`. */
export interface ChartSeries {
  key: string;
  label: string;
  /** A colour with at least 3:1 contrast on white (see global.css's palette). */
  color: string;
}

/**
 * The console's one chart: a titled figure around a recharts area chart (a level over time,
 * such as a balance) or bar chart (counts per day or hour, stacked when there are several
 * series), with its loading, error and empty states. recharts renders SVG in the browser only,
 * so the static export has nothing to hydrate differently; its accessibility layer makes the
 * chart keyboard-focusable with arrow keys moving the tooltip. A short text summary (`summary`)
 * is the figure's caption, so the numbers are readable without the drawing.
 *
 * @example
 * <Chart title="Issuances per day" kind="bar" resource={issuances} data={issuances.data?.data}
 *   xKey="day" series={[{ key: "issued", label: "Issued", color: "#1d4ed8" }]} summary="12 in 30 days" />
 */
export function Chart<T extends object>({
  title,
  kind,
  data,
  xKey,
  series,
  summary,
  resource,
  formatX = String,
  formatY = String,
  emptyTitle = "No data yet",
  testId,
}: {
  title: string;
  kind: "area" | "bar";
  data: readonly T[] | undefined;
  xKey: keyof T & string;
  series: readonly ChartSeries[];
  summary: string;
  /** Where `data` comes from: its loading and error states are the chart's. */
  resource: Pick<Resource<unknown>, "loading" | "error" | "reload">;
  formatX?: (value: string) => string;
  formatY?: (value: number) => string;
  emptyTitle?: string;
  testId?: string;
}) {
  const rows = data as T[] | undefined;
  const hasData = rows !== undefined && rows.length > 0;
  const common = {
    data: rows,
    margin: { top: 8, right: 12, bottom: 0, left: 0 },
    accessibilityLayer: true,
  };
  const axes = (
    <>
      <CartesianGrid stroke="#e5e7eb" vertical={false} />
      <XAxis
        dataKey={String(xKey)}
        tickFormatter={(value) => formatX(String(value))}
        tick={{ fill: "#374151", fontSize: 12 }}
        minTickGap={24}
      />
      <YAxis
        tickFormatter={(value) => formatY(Number(value))}
        tick={{ fill: "#374151", fontSize: 12 }}
        width={56}
        allowDecimals={kind === "area"}
      />
      <Tooltip
        labelFormatter={(value: unknown) =>
          typeof value === "string" || typeof value === "number" ? formatX(String(value)) : ""
        }
        formatter={(value) => formatY(Number(value))}
      />
      {series.length > 1 && <Legend />}
    </>
  );
  return (
    <figure className="card chart" data-testid={testId}>
      <h2>{title}</h2>
      {resource.loading && !hasData ? (
        <Loading label={`Loading ${title.toLowerCase()}…`} />
      ) : resource.error !== undefined ? (
        <ErrorState message={resource.error} onRetry={resource.reload} />
      ) : !hasData ? (
        <EmptyState title={emptyTitle} />
      ) : (
        <div className="chart-box">
          <ResponsiveContainer width="100%" height="100%">
            {kind === "area" ? (
              <AreaChart {...common}>
                {axes}
                {series.map((s) => (
                  <Area
                    key={s.key}
                    type="stepAfter"
                    dataKey={s.key}
                    name={s.label}
                    stroke={s.color}
                    fill={s.color}
                    fillOpacity={0.15}
                    isAnimationActive={false}
                  />
                ))}
              </AreaChart>
            ) : (
              <BarChart {...common}>
                {axes}
                {series.map((s) => (
                  <Bar
                    key={s.key}
                    dataKey={s.key}
                    name={s.label}
                    fill={s.color}
                    stackId={series.length > 1 ? "stack" : undefined}
                    isAnimationActive={false}
                  />
                ))}
              </BarChart>
            )}
          </ResponsiveContainer>
        </div>
      )}
      <figcaption
        className="muted"
        data-testid={testId === undefined ? undefined : `${testId}-summary`}
      >
        {summary}
      </figcaption>
    </figure>
  );
}
