import { AbiCoder, getAddress } from "ethers";
import type { Logger } from "pino";
import type pg from "pg";
import { bodyPruned, HistoryPrunedError } from "../chain/history.js";
import type { Database } from "../db/client.js";
import type { ContractAddresses } from "../chain/contracts/bindings.js";
import {
  assetTokenInterface,
  marketplaceInterface,
  registryInterface,
} from "../chain/contracts/bindings.js";
import { receiptFacts, type ReceiptFacts } from "../chain/contracts/receipt-events.js";
import type { RpcClient } from "../chain/rpc/rpc-client.js";
import { formatCoin } from "../shared/coin-amount.js";
import type { RawReceipt } from "./decisions.js";
import type { RecoveryGate } from "./recovery-gate.js";
import { readWriteTag, type WriteTag } from "./write-tag.js";

/** Blocks read per JSON-RPC batch while scanning. */
const SCAN_BATCH = 50;
/** How long a rebuilt idempotency record is kept (as the records the API writes: 24 h). */
const RECOVERED_KEY_TTL_MS = 24 * 3_600_000;

/** What the reconciliation needs. */
export interface ReconcilerDeps {
  database: Database;
  rpc: RpcClient;
  contracts: ContractAddresses;
  logger: Logger;
  /** Blocks above a write's block before it is `confirmed` (`CONFIRMATIONS`). */
  confirmations: number;
  gate: RecoveryGate;
}

/** What one run did. */
export interface ReconcileReport {
  wallets: number;
  blocks: number;
  /** Rows written from the chain: rebuilt (absent from the database) or settled (held live). */
  rebuilt: number;
  settled: number;
  /** Idempotency records rebuilt. */
  keys: number;
  /** Transactions of the wallets with no tag (cancelling self-transfers, nonce fillers). */
  untagged: number;
}

interface PendingWallet {
  walletId: string;
  orgId: string;
  address: string;
  fromBlock: number;
}

interface RpcTx {
  hash: string;
  from: string;
  to: string | null;
  input: string;
  value: string;
  gas: string;
  nonce: string;
  type?: string;
  gasPrice?: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
}

interface RpcBlock {
  number: string;
  timestamp: string;
  transactionsRoot?: string;
  transactions: RpcTx[];
}

interface Found {
  wallet: PendingWallet;
  tx: RpcTx;
  tag: WriteTag;
  callData: string;
  receipt: RawReceipt;
  blockTime: Date;
}

/**
 * Makes the database agree with the chain before the service takes writes
 * (docs/recovery.md "After a restore"), for every custodial wallet that waits for it: those a
 * restore listed (`chain_reconciliations`, from the backup's chain head) and those whose nonce
 * on chain is ahead of their rows (from their last known receipt). Every transaction such a
 * wallet sent after that block is read from the chain; its write tag (`engine/write-tag.ts`)
 * names the write:
 *
 * - a write the database holds live (`queued`, `sent`, `mined`) is settled from its receipt:
 *   never sent again;
 * - a write the database does not hold is rebuilt: id, kind, batch parent, nonce, attempt,
 *   receipt, state, result (token id, listing id, ...: the receipt's facts and what its
 *   calldata says), and its idempotency record (`recovered_idempotency_keys`: the tag carries the
 *   key's keyed hash, not the key);
 * - a transaction without a tag (a cancelling self-transfer, a nonce filler) is left to the
 *   engine's nonce checks.
 *
 * The wallet's next nonce is then read again from the chain. One process at a time (an advisory
 * lock); a run interrupted half-way is run again at the next start (the wallets stay listed).
 */
export async function reconcileWithChain(deps: ReconcilerDeps): Promise<ReconcileReport> {
  const report: ReconcileReport = {
    wallets: 0,
    blocks: 0,
    rebuilt: 0,
    settled: 0,
    keys: 0,
    untagged: 0,
  };
  const lock = await deps.database.pool.connect();
  try {
    await lock.query(`SELECT pg_advisory_lock(hashtext('rwa-chain-reconciliation'))`);
    await listWalletsAhead(deps);
    const pending = (
      await lock.query<{ wallet_id: string; org_id: string; address: string; from_block: string }>(
        `SELECT c.wallet_id, w.org_id, w.address, c.from_block::text AS from_block
           FROM chain_reconciliations c JOIN wallets w ON w.id = c.wallet_id`,
      )
    ).rows.map(
      (r): PendingWallet => ({
        walletId: r.wallet_id,
        orgId: r.org_id,
        address: r.address.toLowerCase(),
        fromBlock: Number(r.from_block),
      }),
    );
    if (pending.length === 0) return report;
    deps.gate.note(pending.map((w) => w.walletId));
    report.wallets = pending.length;
    const started = Date.now();
    await waitForPools(deps, pending);
    const head = Number(BigInt(await deps.rpc.call<string>("eth_blockNumber", [])));
    const from = Math.min(...pending.map((w) => w.fromBlock)) + 1;
    const byAddress = new Map(pending.map((w) => [w.address, w]));
    const found: Found[] = [];
    for (let n = from; n <= head; n += SCAN_BATCH) {
      const numbers: number[] = [];
      for (let b = n; b < Math.min(n + SCAN_BATCH, head + 1); b++) numbers.push(b);
      const blocks = await deps.rpc.batch(
        numbers.map((b) => ({ method: "eth_getBlockByNumber", params: [toHex(b), true] })),
      );
      const ours: Array<Omit<Found, "receipt">> = [];
      for (const [i, answer] of blocks.entries()) {
        if (answer instanceof Error) throw answer;
        const block = answer as RpcBlock;
        // A block whose transactions the node dropped would hide a write mined after the backup.
        if (bodyPruned(block))
          throw new HistoryPrunedError(
            numbers[i]!,
            "reconcile the restored wallets with the chain",
          );
        const blockTime = new Date(Number(BigInt(block.timestamp)) * 1000);
        for (const tx of block.transactions) {
          const wallet = byAddress.get(tx.from.toLowerCase());
          if (wallet === undefined || numbers[i]! <= wallet.fromBlock) continue;
          const tagged = readWriteTag(tx.input);
          if (tagged === undefined) {
            report.untagged += 1;
            continue;
          }
          ours.push({ wallet, tx, tag: tagged.tag, callData: tagged.callData, blockTime });
        }
      }
      report.blocks += numbers.length;
      if (ours.length === 0) continue;
      const receipts = await deps.rpc.batch(
        ours.map((x) => ({ method: "eth_getTransactionReceipt", params: [x.tx.hash] })),
      );
      for (const [i, receipt] of receipts.entries()) {
        if (receipt instanceof Error || receipt === null) throw new Error("receipt not found");
        found.push({ ...ours[i]!, receipt: receipt as RawReceipt });
      }
    }
    const client = await deps.database.pool.connect();
    try {
      await client.query("BEGIN");
      for (const item of found) {
        const outcome = await applyFound(client, deps, item, head);
        if (outcome === "rebuilt") report.rebuilt += 1;
        if (outcome === "settled") report.settled += 1;
        if (item.tag.key !== undefined) {
          const inserted = await client.query(
            `INSERT INTO recovered_idempotency_keys (org_id, key_tag, request_tag, transaction_id, expires_at)
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
            [
              item.wallet.orgId,
              item.tag.key.keyTag,
              item.tag.key.requestTag,
              item.tag.parent?.id ?? item.tag.id,
              new Date(item.blockTime.getTime() + RECOVERED_KEY_TTL_MS),
            ],
          );
          report.keys += inserted.rowCount ?? 0;
        }
      }
      await finishRebuiltParents(client, found);
      const ids = pending.map((w) => w.walletId);
      // The next nonce is read again from the chain and the live rows (`resyncNonce`).
      await client.query(`UPDATE wallets SET next_nonce = NULL WHERE id = ANY($1)`, [ids]);
      await client.query(`DELETE FROM chain_reconciliations WHERE wallet_id = ANY($1)`, [ids]);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    for (const w of pending) deps.gate.done(w.walletId, report.keys > 0);
    const seconds = (Date.now() - started) / 1000;
    deps.logger.info(
      { ...report, seconds, blocksPerSecond: Math.round(report.blocks / Math.max(seconds, 0.001)) },
      "reconciled custodial wallets with the chain",
    );
    return report;
  } finally {
    await lock
      .query(`SELECT pg_advisory_unlock(hashtext('rwa-chain-reconciliation'))`)
      .catch(() => undefined);
    lock.release();
  }
}

/** How long the reconciliation waits for the wallets' transactions still in the pool to be mined. */
const POOL_WAIT_MS = 60_000;

/**
 * Waits (at most `POOL_WAIT_MS`) until none of the wallets has a transaction in the node's pool
 * (its pending nonce equals its latest): one sent just before the loss is then in a block, and
 * rebuilt with the others. One still pooled after that is logged; once mined, its row is not
 * known (docs/recovery.md "Recovery point").
 */
async function waitForPools(
  deps: ReconcilerDeps,
  wallets: readonly PendingWallet[],
): Promise<void> {
  const deadline = Date.now() + POOL_WAIT_MS;
  for (;;) {
    const answers = await deps.rpc.batch(
      wallets.flatMap((w) => [
        { method: "eth_getTransactionCount", params: [w.address, "latest"] },
        { method: "eth_getTransactionCount", params: [w.address, "pending"] },
      ]),
    );
    const pooled = wallets.filter((_, i) => answers[2 * i] !== answers[2 * i + 1]);
    if (pooled.length === 0) return;
    if (Date.now() > deadline) {
      deps.logger.warn(
        { wallets: pooled.map((w) => w.walletId) },
        "custodial wallets still have transactions in the pool; reconciling without them",
      );
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * Lists for reconciliation the wallets whose nonce on chain is ahead of what their rows know
 * (`next_nonce`, or their highest nonce + 1 when it was cleared), from the block of their last
 * known receipt.
 */
async function listWalletsAhead(deps: ReconcilerDeps): Promise<void> {
  const { rows } = await deps.database.pool.query<{
    id: string;
    address: string;
    next_nonce: string | null;
    last_block: string | null;
  }>(
    `SELECT w.id, w.address,
            greatest(w.next_nonce, (SELECT max(t.nonce) + 1 FROM transactions t
                                     WHERE t.wallet_id = w.id AND t.nonce IS NOT NULL))::text AS next_nonce,
            (SELECT max((t.receipt->>'blockNumber')::bigint) FROM transactions t
              WHERE t.wallet_id = w.id AND t.receipt IS NOT NULL)::text AS last_block
       FROM wallets w
      WHERE NOT EXISTS (SELECT 1 FROM chain_reconciliations c WHERE c.wallet_id = w.id)`,
  );
  if (rows.length === 0) return;
  const counts = await deps.rpc.batch(
    rows.map((w) => ({ method: "eth_getTransactionCount", params: [w.address, "latest"] })),
  );
  const ahead: Array<{ id: string; from: number }> = [];
  for (const [i, w] of rows.entries()) {
    const count = counts[i];
    if (count instanceof Error) throw count;
    if (Number(BigInt(count as string)) > Number(w.next_nonce ?? 0))
      ahead.push({
        id: w.id,
        from: w.last_block === null ? deps.contracts.deployBlock : Number(w.last_block),
      });
  }
  if (ahead.length === 0) return;
  deps.logger.warn(
    { wallets: ahead.map((a) => a.id) },
    "custodial wallets sent transactions their rows do not know; reconciling them with the chain",
  );
  await deps.database.pool.query(
    `INSERT INTO chain_reconciliations (wallet_id, from_block, reason)
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[]) ON CONFLICT DO NOTHING`,
    [ahead.map((a) => a.id), ahead.map((a) => a.from), ahead.map(() => "nonce-ahead")],
  );
}

type Client = pg.PoolClient;

/** One tagged transaction's write: settled (held live), rebuilt (absent), or left (final). */
async function applyFound(
  client: Client,
  deps: ReconcilerDeps,
  item: Found,
  head: number,
): Promise<"rebuilt" | "settled" | "left"> {
  const { tx, tag, receipt, wallet, blockTime } = item;
  const blockNumber = Number(BigInt(receipt.blockNumber));
  const ok = Number(BigInt(receipt.status)) === 1;
  const deep = head - blockNumber >= deps.confirmations;
  const state = !deep ? "mined" : ok ? "confirmed" : "failed";
  const summary = {
    hash: receipt.transactionHash,
    blockNumber,
    blockHash: receipt.blockHash,
    status: ok ? 1 : 0,
    gasUsed: BigInt(receipt.gasUsed).toString(),
    effectiveGasPrice: BigInt(receipt.effectiveGasPrice ?? tx.gasPrice ?? "0x0").toString(),
  };
  const maxFee = BigInt(tx.maxFeePerGas ?? tx.gasPrice ?? "0x0").toString();
  const tip = BigInt(tx.maxPriorityFeePerGas ?? tx.gasPrice ?? "0x0").toString();
  const nonce = Number(BigInt(tx.nonce));
  const attempt = {
    hash: tx.hash,
    nonce,
    type: tx.type === "0x0" ? 0 : 2,
    maxFeePerGas: maxFee,
    maxPriorityFeePerGas: tip,
    sentAt: blockTime.toISOString(),
  };
  const facts = receiptFacts(receipt.logs, deps.contracts);
  await client.query(
    `INSERT INTO transaction_hashes (hash, transaction_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
    [tx.hash, tag.id],
  );
  const existing = (
    await client.query<{ state: string; context: Record<string, unknown> }>(
      `SELECT state, context FROM transactions WHERE id = $1 FOR UPDATE`,
      [tag.id],
    )
  ).rows[0];
  if (existing !== undefined) {
    if (!["queued", "sent", "mined"].includes(existing.state)) return "left";
    // Held live by the backup, mined since: settled from the chain, never sent again. The
    // attempt it was mined as is added when the backup did not know it (sent after the backup).
    const result = ok ? { ...existing.context, ...facts, txHash: tx.hash } : null;
    await client.query(
      `UPDATE transactions SET state = $2, nonce = $3, receipt = $4, result = $5,
              attempts = CASE WHEN attempts @> jsonb_build_array(jsonb_build_object('hash', $6::text))
                              THEN attempts ELSE attempts || $7::jsonb END,
              error = $8, error_kind = $9, last_error = NULL, updated_at = now(),
              sent_at = coalesce(sent_at, $10), mined_at = $10,
              confirmed_at = CASE WHEN $2 = 'confirmed' THEN now() END,
              failed_at = CASE WHEN $2 = 'failed' THEN now() END
        WHERE id = $1`,
      [
        tag.id,
        state,
        nonce,
        summary,
        result,
        tx.hash,
        JSON.stringify([attempt]),
        ok ? null : "execution reverted",
        ok ? null : "revert",
        blockTime,
      ],
    );
    return "settled";
  }
  if (tag.parent !== undefined) await ensureParent(client, item);
  const context = { recovered: true, ...recoveredContext(item, facts) };
  const result = ok ? { ...context, ...facts, txHash: tx.hash } : null;
  await client.query(
    `INSERT INTO transactions (id, org_id, wallet_id, parent_id, item_index, kind, mode, request_hash,
        from_address, to_address, data, value, gas_limit, max_fee_per_gas, max_priority_fee_per_gas,
        fee_cap, nonce, state, attempts, receipt, context, result, error, error_kind, created_at,
        sent_at, mined_at, confirmed_at, failed_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'async', $7, $8, $9, $10, $11, $12, $13, $14, $13, $15, $16,
        $17, $18, $19, $20, $21, $22, $23, $23, $23,
        CASE WHEN $16 = 'confirmed' THEN now() END, CASE WHEN $16 = 'failed' THEN now() END)`,
    [
      tag.id,
      wallet.orgId,
      wallet.walletId,
      tag.parent?.id ?? null,
      tag.parent?.index ?? null,
      tag.kind,
      `recovered:${tag.key?.requestTag ?? ""}`,
      getAddress(tx.from),
      tx.to === null ? null : getAddress(tx.to),
      tx.input,
      BigInt(tx.value).toString(),
      BigInt(tx.gas).toString(),
      maxFee,
      tip,
      nonce,
      state,
      JSON.stringify([attempt]),
      summary,
      context,
      result,
      ok ? null : "execution reverted",
      ok ? null : "revert",
      blockTime,
    ],
  );
  return "rebuilt";
}

/** A rebuilt batch item's parent row, when the database does not hold it. */
async function ensureParent(client: Client, item: Found): Promise<void> {
  const parent = item.tag.parent!;
  const address = getAddress(item.tx.from);
  await client.query(
    `INSERT INTO transactions (id, org_id, wallet_id, kind, mode, request_hash, from_address, state,
        context, created_at)
     VALUES ($1, $2, $3, 'batch-issue', 'async', $4, $5, 'sent', $6, $7)
     ON CONFLICT (id) DO NOTHING`,
    [
      parent.id,
      item.wallet.orgId,
      item.wallet.walletId,
      `recovered:${item.tag.key?.requestTag ?? ""}`,
      address,
      { wallet: address, owner: address, recovered: true },
      item.blockTime,
    ],
  );
}

/**
 * Ends the batch parents of the rebuilt items whose items are all final (the counts, as
 * `summariseBatch`). Items of such a batch recorded after the backup and never sent are lost
 * with the database: the batch counts the items the chain holds.
 */
async function finishRebuiltParents(client: Client, found: readonly Found[]): Promise<void> {
  const parents = [...new Set(found.flatMap((f) => (f.tag.parent ? [f.tag.parent.id] : [])))];
  if (parents.length === 0) return;
  await client.query(
    `UPDATE transactions p
        SET state = CASE WHEN c.issued > 0 OR c.total = 0 THEN 'confirmed' ELSE 'failed' END,
            result = p.context || jsonb_build_object('issued', c.issued, 'failed', c.total - c.issued),
            confirmed_at = CASE WHEN c.issued > 0 OR c.total = 0 THEN now() END,
            failed_at = CASE WHEN c.issued > 0 OR c.total = 0 THEN NULL ELSE now() END,
            updated_at = now()
       FROM (SELECT parent_id, count(*) AS total,
                    count(*) FILTER (WHERE state = 'confirmed') AS issued,
                    count(*) FILTER (WHERE state IN ('queued', 'sent', 'mined')) AS live
               FROM transactions WHERE parent_id = ANY($1) GROUP BY parent_id) c
      WHERE p.id = c.parent_id AND c.live = 0 AND p.state IN ('queued', 'sent', 'mined')`,
    [parents],
  );
}

/**
 * What a rebuilt write's answer needs beside the receipt's facts, as far as the chain says it:
 * the calldata's arguments and the sender. A metadata document's name and CID are not on chain
 * in that form: a rebuilt issuance answers them empty (docs/recovery.md).
 */
function recoveredContext(item: Found, facts: ReceiptFacts): Record<string, unknown> {
  const wallet = getAddress(item.tx.from);
  const data = item.callData;
  try {
    switch (item.tag.kind) {
      case "issue-asset": {
        const args = assetTokenInterface.decodeFunctionData("mint", data);
        return {
          wallet,
          owner: wallet,
          assetType: String(args[0]),
          name: "",
          stakedAmount: formatCoin(BigInt(item.tx.value)),
          ipfsHash: "",
        };
      }
      case "transfer":
        return { from: wallet, to: facts.transferTo ?? "", tokenId: facts.tokenId ?? "" };
      case "list": {
        const args = assetTokenInterface.decodeFunctionData(
          "safeTransferFrom(address,address,uint256,bytes)",
          data,
        );
        const [, days] = AbiCoder.defaultAbiCoder().decode(
          ["uint256", "uint256"],
          args[3] as string,
        );
        return {
          tokenId: String(args[2]),
          priceInCOIN: formatCoin(BigInt(facts.priceWei ?? "0")),
          durationDays: Number(days),
          seller: wallet,
        };
      }
      case "delist": {
        const args = marketplaceInterface.parseTransaction({ data });
        return {
          listingId: String(args?.args[0] ?? ""),
          tokenId: facts.tokenId ?? "",
          reason: facts.delistReason ?? "cancelled",
        };
      }
      case "buy": {
        const args = marketplaceInterface.decodeFunctionData("buy", data);
        return { listingId: String(args[0]), tokenId: facts.tokenId ?? "", buyer: wallet };
      }
      case "redeem-asset": {
        const args = assetTokenInterface.decodeFunctionData("redeem", data);
        return {
          tokenId: String(args[0]),
          stakeReturned: formatCoin(BigInt(facts.stakeWei ?? "0")),
        };
      }
      case "register-asset-type": {
        const args = registryInterface.parseTransaction({ data });
        return { typeName: String(args?.args[0] ?? facts.typeName ?? "") };
      }
      default:
        return {};
    }
  } catch {
    return {};
  }
}

function toHex(n: number): string {
  return `0x${n.toString(16)}`;
}
