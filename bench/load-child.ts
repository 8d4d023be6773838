/**
 * Load generator child process for the benchmarks: runs autocannon with the options given as
 * JSON in argv[2] and prints autocannon's result as one JSON line on stdout. Running the load in
 * its own process keeps it off the event loop of the relayer it measures.
 *
 * Options: `url`, `connections`, `duration` (s), optional `overallRate` (req/s), optional
 * `headers`, and optional `randomIdPath` + `maxId`: each request then goes to
 * `<randomIdPath><1..maxId>`.
 *
 * @example
 * node --import tsx bench/load-child.ts '{"url":"http://127.0.0.1:8080/api/v1/status","connections":8,"duration":5}'
 */
import { createRequire } from "node:module";

interface LoadOptions {
  url: string;
  connections: number;
  duration: number;
  overallRate?: number;
  headers?: Record<string, string>;
  randomIdPath?: string;
  maxId?: number;
}

type Autocannon = (options: Record<string, unknown>) => Promise<unknown>;
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

const options = JSON.parse(process.argv[2] ?? "{}") as LoadOptions;
const { randomIdPath, maxId = 1 } = options;
const result = await autocannon({
  url: options.url,
  connections: options.connections,
  duration: options.duration,
  ...(options.headers === undefined ? {} : { headers: options.headers }),
  ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }),
  ...(randomIdPath === undefined
    ? {}
    : {
        requests: [
          {
            setupRequest: (req: { path: string }) => ({
              ...req,
              path: `${randomIdPath}${1 + Math.floor(Math.random() * maxId)}`,
            }),
          },
        ],
      }),
});
process.stdout.write(`${JSON.stringify(result)}\n`);
