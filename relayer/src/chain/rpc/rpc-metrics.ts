import { Counter, Gauge, type Registry } from "prom-client";
import type { RpcClient } from "./rpc-client.js";

/**
 * Exposes the RPC client's per-endpoint state on `/metrics`, read at scrape time:
 * `rpc_endpoint_up`, `rpc_endpoint_head_block`, `rpc_endpoint_latency_seconds` (last health
 * check) and `rpc_requests_total{outcome="answered"|"failed"}`, each labelled by `endpoint`
 * (host and port only, never a URL's path or query, which may hold an API key), and
 * `rpc_calls_total{method}`: the JSON-RPC requests sent per method, a batch's one by one.
 * Call it once per registry (prom-client refuses a second registration of a name).
 *
 * @example
 * registerRpcMetrics(metrics.registry, ctx.rpc);
 */
export function registerRpcMetrics(registry: Registry, rpc: RpcClient): void {
  const perEndpoint = (
    name: string,
    help: string,
    value: (endpoint: RpcClient["endpoints"][number]) => number | undefined,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ["endpoint"] as const,
      registers: [registry],
      collect() {
        for (const e of rpc.endpoints) {
          const v = value(e);
          if (v !== undefined) this.set({ endpoint: e.label }, v);
        }
      },
    });
  perEndpoint(
    "rpc_endpoint_up",
    "1 when the chain node endpoint answered its last request or health check",
    (e) => (e.up ? 1 : 0),
  );
  perEndpoint(
    "rpc_endpoint_head_block",
    "Head block reported by the endpoint at its last health check",
    (e) => e.headBlock,
  );
  perEndpoint(
    "rpc_endpoint_latency_seconds",
    "Round trip of the endpoint's last health check",
    (e) => (e.latencyMs === undefined ? undefined : e.latencyMs / 1000),
  );
  new Counter({
    name: "rpc_requests_total",
    help: "JSON-RPC round trips per endpoint: answered, or failed to connect / time out / 5xx",
    labelNames: ["endpoint", "outcome"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const e of rpc.endpoints) {
        this.inc({ endpoint: e.label, outcome: "answered" }, e.requests);
        this.inc({ endpoint: e.label, outcome: "failed" }, e.failures);
      }
    },
  });
  new Counter({
    name: "rpc_calls_total",
    help: "JSON-RPC requests sent to the chain node, per method (each request of a batch counts)",
    labelNames: ["method"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [method, count] of rpc.sentByMethod) this.inc({ method }, count);
    },
  });
}
