import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ConfigError } from "../errors.js";

/**
 * Connections the kernel holds for a listening socket until the process accepts them (`listen`'s
 * backlog; the kernel caps it at `net.core.somaxconn`). Node's default, 511, was too few for a
 * plain client that opens a connection per concurrent request: in a burst of 1,000 writers some
 * waited out their 10 s connect timeout.
 */
const LISTEN_BACKLOG = 4_096;

/**
 * How long an idle keep-alive connection stays open: longer than the 60 s idle timeout of the
 * common load balancers, so that the balancer (or a client's pool) closes it first and never
 * sends a request on a connection this server is closing (an ECONNRESET for the client). Node's
 * default is 5 s.
 */
const KEEP_ALIVE_MS = 65_000;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** The HTTP servers of one process, all on one host and port. */
export interface Listeners {
  /** The port they share (the one chosen by the system when asked for port 0). */
  readonly port: number;
  readonly servers: readonly Server[];
  /** Stops accepting, lets requests in flight finish briefly (2 s), then cuts the rest. */
  close(): Promise<void>;
}

/**
 * Listens on `host:port` with `count` HTTP servers sharing the port (`SO_REUSEPORT`, Linux 3.9+;
 * on other systems pass 1). The port is first bound alone (port 0 picks a free port), then by
 * the `count` sockets. Every server runs `handler` with the same timeouts.
 *
 * Why more than one (issue 45): since libuv 1.45 (Node 20) a listening socket accepts **one
 * connection per turn of the event loop** (libuv PR #3696). Under load a turn of this process
 * takes 50-200 ms (the engine's rounds, database answers and requests all run on the one loop),
 * so one socket accepted 5-20 connections a second while a plain client opened about 200 a
 * second: after a quiet spell (its pooled connections closed) the burst's connections queued in
 * the kernel for 5-10 s before the process saw them (`ss -ltn` showed the listen queue at 400),
 * though each request then took under 100 ms. With N sockets bound to the same port (the kernel
 * spreads new connections over them), a turn accepts up to N. A stand-alone server with an 80 ms
 * busy loop took 24 s to accept 300 connections with one socket, 2.3 s with 16 and 1.1 s with 64.
 *
 * @example
 * const listeners = await listenShared(app, { port: 8080, host: "127.0.0.1", count: 64 });
 * await listeners.close();
 */
export async function listenShared(
  handler: Handler,
  options: { port: number; host: string; count: number },
): Promise<Listeners> {
  const { host, count } = options;
  if (count <= 1) {
    const server = await listenOne(handler, { port: options.port, host, reusePort: false });
    return {
      port: (server.address() as AddressInfo).port,
      servers: [server],
      close: () => closeServer(server),
    };
  }
  // A port another process holds with SO_REUSEPORT too (a second `npm start` as the same user)
  // would be shared silently: bind it alone first, so a port in use is refused as it always was.
  const probe = await listenOne(handler, { port: options.port, host, reusePort: false });
  const port = (probe.address() as AddressInfo).port;
  await closeServer(probe);
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++)
      servers.push(await listenOne(handler, { port, host, reusePort: true }));
  } catch (error) {
    await Promise.all(servers.map(closeServer));
    throw error;
  }
  return {
    port,
    servers,
    close: async () => {
      await Promise.all(servers.map(closeServer));
    },
  };
}

function listenOne(
  handler: Handler,
  options: { port: number; host: string; reusePort: boolean },
): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(handler);
    server.keepAliveTimeout = KEEP_ALIVE_MS;
    // A request's headers may arrive at the end of a keep-alive wait: the bound must be longer.
    server.headersTimeout = KEEP_ALIVE_MS + 1_000;
    server.once("listening", () => resolve(server));
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") {
        reject(
          new ConfigError(
            `Port ${options.host}:${options.port} is already in use: set PORT to a free port (or 0)`,
          ),
        );
      } else {
        reject(error);
      }
    });
    server.listen({
      port: options.port,
      host: options.host,
      backlog: LISTEN_BACKLOG,
      ...(options.reusePort ? { reusePort: true } : {}),
    });
  });
}

/** Stops accepting connections, lets requests in flight finish briefly, then cuts the rest. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 2_000).unref();
  });
}
