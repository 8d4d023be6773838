/**
 * The scale bench's plain-client phases (`npm run bench -- scale`, phases `cold`, `flood` and
 * `sync-flood`): the load as an integrator's own script makes it, not as our tuned generator
 * does. One process, Node's global `fetch` with its default dispatcher (a new connection whenever
 * none is free, no pool bound), JSON bodies, no warm-up:
 * - `cold`: 60 s without a write (BENCH_IDLE_SECONDS), then open arrivals of async issue-asset at
 *   0.8× the chain's limit; each request's latency counts from its scheduled instant;
 * - `flood`: 1,000 closed loops of async writers (the orgs × 10), a 429 waited out for its
 *   `Retry-After`, as a client that honours it does;
 * - `sync-flood`: 1,000 closed loops of synchronous writers.
 *
 * Each prints the p50 and p99 of every answer (202 or 200 and 429 alike), the p99 of each second
 * of the window (so a cold start shows), the answers by status, socket errors, and the minted
 * rate's ratio to the chain's limit over the window (mints in the window's blocks; the writes
 * accepted late are finished before the next phase and counted in the bench's final check).
 */
import type { JsonRpcProvider } from "ethers";
import type { ClusterOrg } from "../test/reliability/support/cluster.js";
import { percentile } from "./support/percentile.js";

const BODY = JSON.stringify({
  assetType: "Bond",
  name: "Plain",
  description: "plain-client benchmark asset",
});

export interface PlainAnswer {
  /** When the request was due (scheduled or sent), ms on `performance.now()`'s clock. */
  due: number;
  ms: number;
  /** HTTP status, or 0 for a request that failed at the socket. */
  status: number;
  transactionId?: string;
  retryAfter?: string | null;
  error?: string;
}

/** One issue-asset with the global fetch; never throws (a socket failure answers status 0). */
async function issue(
  baseUrl: string,
  org: ClusterOrg,
  async: boolean,
  due: number,
): Promise<PlainAnswer> {
  try {
    const res = await fetch(`${baseUrl}/api/v1/write/issue-asset`, {
      method: "POST",
      headers: {
        "x-api-key": org.apiKey,
        "content-type": "application/json",
        ...(async ? { prefer: "respond-async" } : {}),
      },
      body: BODY,
    });
    const body = (await res.json().catch(() => undefined)) as
      | { transactionId?: string; error?: string }
      | undefined;
    return {
      due,
      ms: performance.now() - due,
      status: res.status,
      transactionId: body?.transactionId ?? res.headers.get("x-transaction-id") ?? undefined,
      retryAfter: res.headers.get("retry-after"),
      error: body?.error,
    };
  } catch (e) {
    const code = (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).name;
    return { due, ms: performance.now() - due, status: 0, error: code };
  }
}

/** The summary of a phase's answers, printed by `report`. */
export interface PlainPhase {
  name: string;
  answers: PlainAnswer[];
  startedAt: number;
  seconds: number;
  /** Mints in the blocks of the window, per second, and their ratio to the chain's limit. */
  mintedPerSecond: number;
  ratio: number;
}

/**
 * Transactions in the blocks mined between two heads: the phase's mints (nothing else writes to
 * the bench's chain meanwhile but the rare re-priced or gap-filling transaction).
 */
async function minedBetween(provider: JsonRpcProvider, from: number, to: number) {
  let txs = 0;
  for (let n = from + 1; n <= to; n++) {
    const block = (await provider.send("eth_getBlockByNumber", [`0x${n.toString(16)}`, false])) as {
      transactions: unknown[];
    };
    txs += block.transactions.length;
  }
  return txs;
}

/** Open arrivals at `rate`/s for `seconds`, each sent on its schedule, over `orgs` round-robin. */
export async function openArrivals(
  baseUrl: string,
  orgs: readonly ClusterOrg[],
  rate: number,
  seconds: number,
): Promise<PlainAnswer[]> {
  const total = Math.round(rate * seconds);
  const t0 = performance.now();
  const pending: Array<Promise<PlainAnswer>> = [];
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * rate) + 1);
    for (; sent < due; sent++)
      pending.push(issue(baseUrl, orgs[sent % orgs.length]!, true, t0 + (sent / rate) * 1000));
    await new Promise((r) => setTimeout(r, 2));
  }
  return Promise.all(pending);
}

/** `writers` closed loops (spread over `orgs`) for `seconds`; a 429 waits its `Retry-After`. */
export async function closedLoops(
  baseUrl: string,
  orgs: readonly ClusterOrg[],
  writers: number,
  seconds: number,
  async: boolean,
): Promise<PlainAnswer[]> {
  const until = performance.now() + seconds * 1000;
  const answers: PlainAnswer[] = [];
  await Promise.all(
    Array.from({ length: writers }, async (_, i) => {
      const org = orgs[i % orgs.length]!;
      while (performance.now() < until) {
        const answer = await issue(baseUrl, org, async, performance.now());
        answers.push(answer);
        if (answer.status === 429 || answer.status === 0) {
          const wait = Number(answer.retryAfter ?? Number.NaN);
          await new Promise((r) => setTimeout(r, Number.isFinite(wait) ? wait * 1000 : 1000));
        }
      }
    }),
  );
  return answers;
}

/** Runs `load` and measures the chain's mints over its window. */
export async function plainPhase(
  provider: JsonRpcProvider,
  name: string,
  limit: number,
  seconds: number,
  load: () => Promise<PlainAnswer[]>,
): Promise<PlainPhase> {
  const fromBlock = await provider.getBlockNumber();
  const startedAt = performance.now();
  const answers = await load();
  const elapsed = (performance.now() - startedAt) / 1000;
  const toBlock = await provider.getBlockNumber();
  const minted = await minedBetween(provider, fromBlock, toBlock);
  const mintedPerSecond = minted / Math.max(seconds, elapsed);
  return { name, answers, startedAt, seconds, mintedPerSecond, ratio: mintedPerSecond / limit };
}

/** Prints a phase: answers by status, p50/p99 overall and per second of the window. */
export function report(phase: PlainPhase): void {
  const { answers } = phase;
  const byStatus = new Map<string, number>();
  for (const a of answers) {
    const key = a.status === 0 ? `socket ${a.error}` : String(a.status);
    byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
  }
  const ms = answers.filter((a) => a.status !== 0).map((a) => a.ms);
  const refused = answers.filter((a) => a.status === 429);
  const noRetryAfter = refused.filter((a) => a.retryAfter === null).length;
  const perSecond: string[] = [];
  for (let s = 0; s < Math.ceil(phase.seconds); s++) {
    const inSecond = answers
      .filter((a) => a.status !== 0)
      .filter((a) => {
        const at = (a.due - phase.startedAt) / 1000;
        return at >= s && at < s + 1;
      })
      .map((a) => a.ms);
    perSecond.push(inSecond.length === 0 ? "-" : percentile(inSecond, 99).toFixed(0));
  }
  console.log(
    `  ${phase.name.padEnd(34)} ${phase.mintedPerSecond.toFixed(1).padStart(6)} minted/s  ratio ${phase.ratio.toFixed(2)}  ` +
      `answers p50 ${percentile(ms, 50).toFixed(0)} ms p99 ${percentile(ms, 99).toFixed(0)} ms max ${Math.max(0, ...ms).toFixed(0)} ms  ` +
      `by status ${[...byStatus].map(([k, v]) => `${k}×${v}`).join(" ")}` +
      (refused.length === 0 ? "" : `  (429 without Retry-After: ${noRetryAfter})`) +
      `\n${"".padEnd(36)}p99 per second (ms): ${perSecond.join(" ")}`,
  );
}
