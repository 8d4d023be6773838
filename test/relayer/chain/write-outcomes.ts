import assert from "node:assert/strict";
import type { ChainProbe } from "../../support/chain-probe.js";
import { httpRequest } from "../../support/http-request.js";
import type { ApiCall } from "../../support/stack.js";
import { assetBody } from "../writes/helpers.js";

/** What `GET /api/v1/transactions/{id}` answers (the fields these tests read). */
export interface TxStatus {
  transactionId: string;
  status: string;
  nonce: number | null;
  hashes: string[];
  receipt: { hash: string; blockNumber: number; blockHash: string } | null;
  result: { tokenId?: string; txHash?: string } | null;
  error: string | null;
}

/** States in which the API has answered a write for good. */
const ANSWERED = new Set(["confirmed", "failed", "replaced", "cancelled", "expired"]);

/** `api` of an organization on a relayer started elsewhere (a child process). */
export function orgApi(baseUrl: string, apiKey: string): ApiCall {
  return (method, path, options = {}) => httpRequest(baseUrl, method, path, { apiKey, ...options });
}

/**
 * Sends `count` issue-asset writes at once with `Prefer: respond-async`; resolves with their
 * transaction ids, in order (each answer must be 202).
 */
export async function issueAsync(api: ApiCall, count: number, label: string): Promise<string[]> {
  const replies = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      api("POST", "/api/v1/write/issue-asset", {
        headers: { prefer: "respond-async" },
        body: assetBody({ name: `${label} ${i}` }),
      }),
    ),
  );
  return replies.map((res) => {
    assert.equal(res.status, 202, res.text);
    return (res.body as { transactionId: string }).transactionId;
  });
}

/**
 * Polls each write's status until every one is answered (confirmed, failed, replaced, cancelled
 * or expired), or
 * `timeoutMs` passes; returns the last statuses either way, so the caller's tally shows what
 * was left open.
 */
export async function waitForAnswers(
  api: ApiCall,
  ids: readonly string[],
  timeoutMs: number,
): Promise<TxStatus[]> {
  const deadline = Date.now() + timeoutMs;
  const last = new Map<string, TxStatus>();
  for (;;) {
    for (const id of ids) {
      if (ANSWERED.has(last.get(id)?.status ?? "")) continue;
      const res = await api("GET", `/api/v1/transactions/${id}`).catch(() => undefined);
      if (res?.status === 200) last.set(id, res.body as TxStatus);
    }
    const done = ids.every((id) => ANSWERED.has(last.get(id)?.status ?? ""));
    if (done || Date.now() > deadline)
      return ids.map(
        (id) => last.get(id) ?? ({ transactionId: id, status: "unknown" } as TxStatus),
      );
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The numbers that must all equal the number of writes when each write made one token. */
export interface IssueTally {
  /** API states of the writes, counted (`{ confirmed: 20 }`). */
  states: Record<string, number>;
  /** Distinct token ids the API reported. */
  tokenIdsReported: number;
  /** Of those, how many the wallet owns on chain. */
  ownedOnChain: number;
  /** Change of `totalSupply` since `supplyBefore`. */
  minted: number;
  /** `balanceOf(wallet)` (the wallet held no token before). */
  walletBalance: number;
  /** The wallet's nonce at latest and pending (a fresh wallet: one per transaction sent). */
  nonce: { latest: number; pending: number };
}

/**
 * Reads the tally of a fresh wallet's issue-asset writes from the API answers and the chain,
 * once the wallet has nothing left in the pool (or after `settleMs`): a write answered failed
 * whose transaction is still pending is counted once it is mined.
 */
export async function tallyIssues(
  chain: ChainProbe,
  wallet: string,
  statuses: readonly TxStatus[],
  supplyBefore: bigint,
  settleMs = 10_000,
): Promise<IssueTally> {
  const deadline = Date.now() + settleMs;
  for (;;) {
    const { latest, pending } = await chain.nonces(wallet);
    if (latest === pending || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const states: Record<string, number> = {};
  for (const s of statuses) states[s.status] = (states[s.status] ?? 0) + 1;
  const tokenIds = [...new Set(statuses.flatMap((s) => s.result?.tokenId ?? []))];
  const owners = await Promise.all(tokenIds.map((id) => chain.ownerOf(id)));
  return {
    states,
    tokenIdsReported: tokenIds.length,
    ownedOnChain: owners.filter((o) => o?.toLowerCase() === wallet.toLowerCase()).length,
    minted: Number((await chain.totalSupply()) - supplyBefore),
    walletBalance: Number(await chain.balanceOf(wallet)),
    nonce: await chain.nonces(wallet),
  };
}

/** The tally of `count` writes that each made exactly one token (and one transaction). */
export function oneTokenPerWrite(count: number): IssueTally {
  return {
    states: { confirmed: count },
    tokenIdsReported: count,
    ownedOnChain: count,
    minted: count,
    walletBalance: count,
    nonce: { latest: count, pending: count },
  };
}
