import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** One request the receiver got. */
export interface ReceivedDelivery {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: {
    event: string;
    timestamp: number;
    orgId: string;
    txHash: string | null;
    blockNumber: number | null;
    // Event payloads differ per event type; tests read the fields they expect.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    data: Record<string, any>;
  };
  receivedAt: number;
  /** The sender's TCP port (tells which process sent it). */
  remotePort: number;
}

/** What the receiver answers for a request: a status, optional headers, an optional delay. */
export type Responder = (
  req: ReceivedDelivery,
  countOnPath: number,
) => { status: number; headers?: Record<string, string>; delayMs?: number };

/** A local HTTP webhook receiver recording everything (answered 200 unless `respond` says otherwise). */
export interface Receiver {
  url(path: string): string;
  received: ReceivedDelivery[];
  /** Accepted (2xx) deliveries on `path`. */
  accepted(path: string): ReceivedDelivery[];
  respond: Map<string, Responder>;
  /** The most requests on `path` the receiver held open at one time (those not yet answered). */
  maxInFlight(path: string): number;
  waitFor(
    predicate: (all: ReceivedDelivery[]) => boolean,
    timeoutMs?: number,
    what?: string,
  ): Promise<void>;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 (random port). */
export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedDelivery[] = [];
  const acceptedSet = new WeakSet<ReceivedDelivery>();
  const respond = new Map<string, Responder>();
  const counts = new Map<string, number>();
  const inFlight = new Map<string, number>();
  const peaks = new Map<string, number>();
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      const path = req.url ?? "/";
      const entry: ReceivedDelivery = {
        path,
        headers: req.headers,
        body,
        json: JSON.parse(body),
        receivedAt: Date.now(),
        remotePort: req.socket.remotePort ?? 0,
      };
      received.push(entry);
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      const answer: ReturnType<Responder> = respond.get(path)?.(entry, n) ?? { status: 200 };
      const open = (inFlight.get(path) ?? 0) + 1;
      inFlight.set(path, open);
      peaks.set(path, Math.max(peaks.get(path) ?? 0, open));
      const reply = () => {
        inFlight.set(path, (inFlight.get(path) ?? 1) - 1);
        if (answer.status >= 200 && answer.status < 300) acceptedSet.add(entry);
        res.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers });
        res.end(answer.status >= 400 ? "nope ".repeat(200) : "ok");
      };
      if (answer.delayMs === undefined) reply();
      else setTimeout(reply, answer.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    accepted: (path) => received.filter((r) => r.path === path && acceptedSet.has(r)),
    respond,
    maxInFlight: (path) => peaks.get(path) ?? 0,
    async waitFor(predicate, timeoutMs = 20_000, what = "deliveries") {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${what}; got ${received.length} requests`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Checks both signatures of a delivery: the spec's `X-Service-Signature` (plain HMAC, constant
 * time) and the Standard Webhooks headers through the independent `standardwebhooks` package.
 * Throws on mismatch.
 */
export function verifyDelivery(delivery: ReceivedDelivery, secret: string): void {
  const expected = `sha256=${createHmac("sha256", secret).update(delivery.body).digest("hex")}`;
  const got = String(delivery.headers["x-service-signature"] ?? "");
  if (got.length !== expected.length || !timingSafeEqual(Buffer.from(got), Buffer.from(expected))) {
    throw new Error("X-Service-Signature mismatch");
  }
  const wh = secret.startsWith("whsec_")
    ? new Webhook(secret)
    : new Webhook(secret, { format: "raw" });
  wh.verify(delivery.body, {
    "webhook-id": String(delivery.headers["webhook-id"]),
    "webhook-timestamp": String(delivery.headers["webhook-timestamp"]),
    "webhook-signature": String(delivery.headers["webhook-signature"]),
  });
  for (const value of Object.values(delivery.headers)) {
    if (String(value).includes(secret)) throw new Error("secret leaked into a header");
  }
}
