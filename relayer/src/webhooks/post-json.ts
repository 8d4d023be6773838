import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { ResolvedDestination } from "./resolve-destination.js";

/** What came back from one POST. */
export interface PostResult {
  status: number;
  /** First 512 characters of the response body. */
  snippet: string;
  retryAfter: string | undefined;
  latencyMs: number;
}

/** The request failed before a status arrived (refused, reset, TLS, timeout). */
export class DeliveryNetworkError extends Error {
  override name = "DeliveryNetworkError";
  constructor(
    message: string,
    readonly latencyMs: number,
  ) {
    super(message);
  }
}

const SNIPPET_CHARS = 512;

/**
 * POSTs `body` to `url`, connecting to the pre-resolved `destination` (the host name still
 * goes in `Host` and TLS SNI), with a hard deadline of `timeoutMs` for the whole exchange.
 * Reads at most a few KB of the response.
 */
export function postJson(
  url: URL,
  destination: ResolvedDestination,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostResult> {
  const started = performance.now();
  const pinned: LookupFunction = (_host, options, callback) => {
    if (options.all === true) {
      (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(
        null,
        [destination],
      );
    } else callback(null, destination.address, destination.family);
  };
  const transport = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(
      url,
      {
        method: "POST",
        headers: {
          ...headers,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        },
        lookup: pinned,
        signal: AbortSignal.timeout(timeoutMs),
        agent: false,
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          if (text.length < SNIPPET_CHARS * 4) text += chunk;
        });
        const finish = () =>
          resolve({
            status: response.statusCode ?? 0,
            snippet: text.slice(0, SNIPPET_CHARS),
            retryAfter: response.headers["retry-after"],
            latencyMs: Math.round(performance.now() - started),
          });
        response.on("end", finish);
        response.on("error", finish);
      },
    );
    request.on("error", (error: Error) => {
      const latencyMs = Math.round(performance.now() - started);
      const message =
        error.name === "AbortError" || error.name === "TimeoutError"
          ? `Timeout after ${timeoutMs} ms`
          : error.message;
      reject(new DeliveryNetworkError(message, latencyMs));
    });
    request.end(body);
  });
}
