import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * How the proxy makes anvil look like another node. Every rule imitates an answer a real node
 * or gateway gives (docs/architecture.md "Node dialects"); anything not named goes to anvil.
 */
export interface DialectProxyOptions {
  /**
   * How batches are refused: "http-400" (a gateway's plain-text 400), "error-object" (one JSON-RPC error object
   * instead of an array), "geth-too-large" (geth's one-element array, -32600 "batch too large"
   * with the first request's id). Default: batches pass.
   */
  refuseBatches?: "http-400" | "error-object" | "geth-too-large";
  /** Batches larger than this get geth's "batch too large" answer. */
  maxBatch?: number;
  /** Methods answered with -32601 "Method not found", alone or in a batch. */
  missingMethods?: readonly string[];
  /** Error answers for methods, e.g. geth's -32000 "transaction indexing is in progress". */
  errors?: Readonly<Record<string, { code: number; message: string }>>;
  /** Fixed results for methods, e.g. `{ eth_gasPrice: "0x0" }`. */
  results?: Readonly<Record<string, unknown>>;
  /** Methods whose answers are left out of batch replies (an answer lost on the way). */
  dropFromBatches?: readonly string[];
}

/** A running proxy and what it saw. */
export interface DialectProxy {
  url: string;
  /** Sizes of the batches received (refused ones included), in order. */
  batches: number[];
  /** Methods of every request received, alone or in a batch. */
  methods: string[];
  close(): Promise<void>;
}

interface Request {
  id?: unknown;
  method?: string;
}

/**
 * A small HTTP proxy in front of anvil that refuses batches, caps their size, hides methods,
 * fixes results or loses answers. For tests of the RPC client's fallbacks and of the relayer
 * on other nodes' dialects. `options` is read on every request, so a test may change it while
 * the proxy runs (a node reconfigured).
 *
 * @example
 * const proxy = await startDialectProxy(anvil.rpcUrl, { refuseBatches: "http-400" });
 * const rpc = new RpcClient(proxy.url);
 */
export async function startDialectProxy(
  target: string,
  options: DialectProxyOptions = {},
): Promise<DialectProxy> {
  const batches: number[] = [];
  const methods: string[] = [];
  const upstream = async (body: unknown): Promise<unknown> => {
    const response = await fetch(target, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return response.json();
  };
  const local = (request: Request): unknown => {
    if (options.missingMethods?.includes(request.method ?? "") === true)
      return {
        jsonrpc: "2.0",
        id: request.id,
        error: { code: -32601, message: "Method not found" },
      };
    if (options.errors !== undefined && request.method! in options.errors)
      return { jsonrpc: "2.0", id: request.id, error: options.errors[request.method!] };
    if (options.results !== undefined && request.method! in options.results)
      return { jsonrpc: "2.0", id: request.id, result: options.results[request.method!] };
    return undefined;
  };
  const answerBatch = async (list: Request[]): Promise<[number, unknown]> => {
    batches.push(list.length);
    const tooLarge = options.maxBatch !== undefined && list.length > options.maxBatch;
    if (options.refuseBatches === "http-400") return [400, "batch requests are disabled"];
    if (options.refuseBatches === "error-object")
      return [
        200,
        { jsonrpc: "2.0", id: null, error: { code: -32600, message: "batch not supported" } },
      ];
    if (options.refuseBatches === "geth-too-large" || tooLarge)
      return [
        200,
        [{ jsonrpc: "2.0", id: list[0]?.id, error: { code: -32600, message: "batch too large" } }],
      ];
    const answers = list.map(local);
    const forward = list.filter((_, i) => answers[i] === undefined);
    const forwarded = forward.length === 0 ? [] : ((await upstream(forward)) as unknown[]);
    let next = 0;
    const merged = answers.map((answer) => answer ?? forwarded[next++]);
    return [
      200,
      merged.filter((_, i) => options.dropFromBatches?.includes(list[i]!.method ?? "") !== true),
    ];
  };
  const server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (chunk: Buffer) => (text += chunk.toString()));
    req.on("end", () => {
      void (async () => {
        const body = JSON.parse(text) as Request | Request[];
        const list = Array.isArray(body) ? body : [body];
        methods.push(...list.map((r) => r.method ?? ""));
        const [status, reply] = Array.isArray(body)
          ? await answerBatch(body)
          : [200, local(body) ?? (await upstream(body))];
        const json = typeof reply !== "string";
        res.writeHead(status, { "content-type": json ? "application/json" : "text/plain" });
        res.end(json ? JSON.stringify(reply) : reply);
      })().catch(() => {
        res.writeHead(502);
        res.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    batches,
    methods,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
