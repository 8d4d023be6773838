import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { AddressInfo } from "node:net";
import {
  REQUEST_LEVEL_KINDS,
  RuleBook,
  type FaultAction,
  type FaultRule,
  type RuleHandle,
} from "./rpc-fault-rules.js";
import { lagView, type LagRewrite } from "./rpc-lag-view.js";

export {
  gatewayError,
  indexingInProgress,
  methodNotFound,
  type FaultAction,
  type FaultRule,
  type RuleHandle,
} from "./rpc-fault-rules.js";

/** Options of `startRpcFaultProxy`. */
export interface RpcFaultProxyOptions {
  /** The node's JSON-RPC URL. May be set (or changed) later through `proxy.target`. */
  target?: string;
  /**
   * Present the chain as of this many blocks behind the head (a lagging endpoint, see
   * `rpc-lag-view.ts`). Default 0: the node's own view. Changeable through `proxy.lagBlocks`.
   */
  lagBlocks?: number;
  /** Port to listen on, on 127.0.0.1; default a free one. */
  port?: number;
}

/** How the proxy refuses batches (`refuseBatches`). */
export interface BatchRefusal {
  /** Refuse only batches with more than this many entries (default: every batch). */
  above?: number;
  /**
   * `"http-400"` (default): HTTP 400 with a JSON-RPC error body, as gateways answer;
   * `"rpc-error"`: HTTP 200 with one JSON-RPC error object (`-32600`) instead of an array.
   */
  answer?: "http-400" | "rpc-error";
}

/** Calls seen by the proxy since the start or the last `resetCounts`. */
export interface ProxyCounts {
  /** Calls received from the client, by method (every entry of a batch counts). */
  received: Record<string, number>;
  /** Calls forwarded to the node, by method. */
  forwarded: Record<string, number>;
  /** Batches received, and how many of them were refused. */
  batches: number;
  batchesRefused: number;
  /**
   * The most calls sent alone whose answer the proxy held back at the same moment (a `drop` or
   * `forward-then-drop` rule, `alone: "hang"`): 1 for a client that sends them one after the
   * other, more for one that sends them side by side.
   */
  peakHanging: number;
}

/**
 * A JSON-RPC proxy in front of a real node whose misbehaviour the test controls at run time.
 *
 * @example
 * const proxy = await startRpcFaultProxy({ target: anvilUrl });
 * const rule = proxy.addRule({
 *   method: ["eth_getTransactionReceipt", "eth_getBlockReceipts"],
 *   action: indexingInProgress(),
 *   forMs: 10_000,
 * });
 * proxy.addRule({ method: "eth_sendRawTransaction", action: { kind: "forward-then-drop" }, times: 1 });
 * proxy.refuseBatches({ above: 10 });
 * // ... drive the relayer through proxy.url ...
 * assert.equal(proxy.counts().forwarded.eth_sendRawTransaction, 20);
 * await proxy.close();
 */
export interface RpcFaultProxy {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The node's URL; requests fail with HTTP 502 while it is unset or unreachable. */
  target: string | undefined;
  /** Blocks behind the head this endpoint presents (0: none). */
  lagBlocks: number;
  /** Adds a rule after the existing ones (the first matching active rule decides). */
  addRule(rule: FaultRule): RuleHandle;
  /** Removes every rule (the batch policy and the lag stay). */
  clearRules(): void;
  /** Refuses batches from now on (all, or those above `above` entries). */
  refuseBatches(refusal?: BatchRefusal): void;
  /** Accepts batches again. */
  allowBatches(): void;
  /** A copy of the counts. */
  counts(): ProxyCounts;
  /** Calls forwarded to the node for `method` (0 when none). */
  forwarded(method: string): number;
  /** Calls received for `method` (0 when none). */
  received(method: string): number;
  resetCounts(): void;
  /** Closes every connection (hanging calls included) and stops listening. */
  close(): Promise<void>;
}

interface WireRequest {
  jsonrpc?: string;
  id?: unknown;
  method: string;
  params?: unknown[];
}

interface WireAnswer {
  jsonrpc: "2.0";
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** What the proxy does with one entry of a request. */
type Plan =
  | { type: "answer"; answer: WireAnswer }
  | { type: "forward"; request: WireRequest; filter?: (result: unknown) => unknown; drop: boolean }
  | { type: "drop" };

const BATCH_REFUSED = { code: -32600, message: "batch requests are not supported" };

/**
 * Starts a proxy on 127.0.0.1 (see `RpcFaultProxy`). Only `node:http` and `fetch`; the node
 * sees the client's own request ids, and batches stay batches.
 */
export async function startRpcFaultProxy(
  options: RpcFaultProxyOptions = {},
): Promise<RpcFaultProxy> {
  const rules = new RuleBook();
  let refusal: Required<BatchRefusal> | undefined;
  let counts = emptyCounts();
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  // Calls held by a `delay` rule: `close()` ends their wait (and they are not forwarded), so a
  // 30 s delay does not keep the test's process alive for 30 s after its last test.
  const delayed = new Set<() => void>();
  let closed = false;

  const state = {
    target: options.target,
    lagBlocks: options.lagBlocks ?? 0,
  };

  const bump = (table: Record<string, number>, method: string) => {
    table[method] = (table[method] ?? 0) + 1;
  };

  /** One HTTP round trip to the node; throws on a connection failure or a non-JSON answer. */
  const upstream = async (body: unknown): Promise<unknown> => {
    if (state.target === undefined) throw new Error("the proxy has no target yet");
    const response = await fetch(state.target, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return response.json();
  };

  /** The lagging view's head, read from the node for each HTTP request. */
  const viewHead = async (): Promise<number> => {
    const answer = (await upstream({
      jsonrpc: "2.0",
      id: "lag-head",
      method: "eth_blockNumber",
      params: [],
    })) as WireAnswer;
    return Math.max(0, Number(BigInt(answer.result as string)) - state.lagBlocks);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const text = await readBody(req);
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      send(res, 200, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
      return;
    }
    const isBatch = Array.isArray(payload);
    const requests = (isBatch ? payload : [payload]) as WireRequest[];
    for (const r of requests) bump(counts.received, r.method);
    if (isBatch) {
      counts.batches += 1;
      if (refusal !== undefined && requests.length > refusal.above) {
        counts.batchesRefused += 1;
        const body = { jsonrpc: "2.0", id: null, error: BATCH_REFUSED };
        send(res, refusal.answer === "http-400" ? 400 : 200, body);
        return;
      }
    }

    const now = Date.now();
    const actions = requests.map((r) =>
      rules.select(r.method, r.params ?? [], isBatch ? "batch" : "single", now),
    );
    const whole = actions.find((a) => a !== undefined && REQUEST_LEVEL_KINDS.has(a.kind));
    if (whole?.kind === "close") {
      req.socket.destroy();
      return;
    }
    if (whole?.kind === "http") {
      res.writeHead(whole.status, { "content-type": "text/plain" }).end(whole.body ?? "");
      return;
    }
    const delay = Math.max(0, ...actions.map((a) => (a?.kind === "delay" ? a.ms : 0)));
    if (delay > 0) {
      await new Promise<void>((resolve) => {
        const end = () => {
          clearTimeout(timer);
          delayed.delete(end);
          resolve();
        };
        const timer = setTimeout(end, delay);
        delayed.add(end);
      });
      if (closed) return;
    }

    let plans: Plan[];
    const byId = new Map<unknown, WireAnswer>();
    try {
      const view = state.lagBlocks > 0 ? await viewHead() : undefined;
      plans = requests.map((r, i) => planCall(r, actions[i], view));
      const toForward = plans.flatMap((p) => (p.type === "forward" ? [p.request] : []));
      if (toForward.length > 0) {
        for (const r of toForward) bump(counts.forwarded, r.method);
        const answer = await upstream(isBatch ? toForward : toForward[0]);
        if (!isBatch) byId.set(toForward[0]!.id, answer as WireAnswer);
        else for (const a of answer as WireAnswer[]) byId.set(a.id, a);
      }
    } catch (error) {
      res
        .writeHead(502, { "content-type": "text/plain" })
        .end(`proxy: node unreachable (${error instanceof Error ? error.message : String(error)})`);
      return;
    }

    const answers: WireAnswer[] = [];
    for (const p of plans) {
      if (p.type === "answer") answers.push(p.answer);
      if (p.type !== "forward" || p.drop) continue;
      const answer = byId.get(p.request.id);
      if (answer === undefined) continue;
      answers.push(
        p.filter !== undefined && "result" in answer
          ? { ...answer, result: p.filter(answer.result) }
          : answer,
      );
    }
    if (isBatch) {
      send(res, 200, answers);
      return;
    }
    if (answers[0] !== undefined) {
      send(res, 200, answers[0]);
      return;
    }
    // A call sent alone whose answer is dropped: hang (the client times out) or close.
    const dropped = actions[0];
    const alone =
      dropped?.kind === "drop" || dropped?.kind === "forward-then-drop" ? dropped.alone : undefined;
    if (alone === "close") {
      req.socket.destroy();
      return;
    }
    hanging.add(res);
    counts.peakHanging = Math.max(counts.peakHanging, hanging.size);
    res.on("close", () => hanging.delete(res));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    get target() {
      return state.target;
    },
    set target(url: string | undefined) {
      state.target = url;
    },
    get lagBlocks() {
      return state.lagBlocks;
    },
    set lagBlocks(n: number) {
      state.lagBlocks = n;
    },
    addRule: (rule) => rules.add(rule, Date.now()),
    clearRules: () => rules.clear(),
    refuseBatches: (r = {}) => {
      refusal = { above: r.above ?? 0, answer: r.answer ?? "http-400" };
    },
    allowBatches: () => {
      refusal = undefined;
    },
    counts: () => ({
      received: { ...counts.received },
      forwarded: { ...counts.forwarded },
      batches: counts.batches,
      batchesRefused: counts.batchesRefused,
      peakHanging: counts.peakHanging,
    }),
    forwarded: (method) => counts.forwarded[method] ?? 0,
    received: (method) => counts.received[method] ?? 0,
    resetCounts: () => {
      counts = emptyCounts();
    },
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        for (const end of delayed) end();
        for (const res of hanging) res.destroy();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * What the proxy does with one call: answer it itself (a rule's error or result, the lagging
 * view's head), drop it, or forward it (rewritten for the lagging view, its answer then filtered
 * or dropped).
 */
function planCall(
  request: WireRequest,
  action: FaultAction | undefined,
  view: number | undefined,
): Plan {
  switch (action?.kind) {
    case "error": {
      const { code, message, data } = action;
      const error = data === undefined ? { code, message } : { code, message, data };
      return { type: "answer", answer: { jsonrpc: "2.0", id: request.id, error } };
    }
    case "result":
      return { type: "answer", answer: { jsonrpc: "2.0", id: request.id, result: action.value } };
    case "drop":
      return { type: "drop" };
    default:
      break;
  }
  const drop = action?.kind === "forward-then-drop";
  if (view === undefined) return { type: "forward", request, drop };
  const rewrite: LagRewrite = lagView(request.method, request.params ?? [], view);
  if ("answer" in rewrite)
    return { type: "answer", answer: { jsonrpc: "2.0", id: request.id, ...rewrite.answer } };
  return {
    type: "forward",
    request: { ...request, params: rewrite.params },
    drop,
    ...(rewrite.filter === undefined ? {} : { filter: rewrite.filter }),
  };
}

function emptyCounts(): ProxyCounts {
  return { received: {}, forwarded: {}, batches: 0, batchesRefused: 0, peakHanging: 0 };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}
