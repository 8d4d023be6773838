import { z } from "zod";

/**
 * The states of a write's transaction as `GET /api/v1/transactions/{id}` reports them: the
 * engine's lifecycle states (relayer/src/engine/tx-lifecycle.ts).
 */
export const TRANSACTION_STATES = [
  "queued",
  "sent",
  "mined",
  "confirmed",
  "failed",
  "replaced",
  "cancelled",
  "expired",
] as const;

/** One transaction state. */
export type TransactionState = (typeof TRANSACTION_STATES)[number];

/**
 * Why the engine marked a sent write stuck (`stuck.reason`, `transaction.stuck`): its fee cap is
 * reached, it was not mined within `STUCK_AFTER_BLOCKS` blocks, or a lower nonce of its wallet
 * is not mined so it cannot be.
 */
export const STUCK_REASONS = ["fee-cap", "not-mined", "nonce-gap"] as const;

/** One of `STUCK_REASONS`. */
export type StuckReason = (typeof STUCK_REASONS)[number];

/** What each stuck reason means, for the API's schema and the event's. */
export const STUCK_REASONS_TEXT =
  "fee-cap: re-priced up to the fee cap it reserved and still not mined; not-mined: sent but " +
  "not mined within STUCK_AFTER_BLOCKS blocks (its own nonce is next); nonce-gap: not mined " +
  "within STUCK_AFTER_BLOCKS blocks because a lower nonce of its wallet is not mined yet";

/**
 * One signed broadcast of a write, as the engine recorded it (`TxAttempt` in
 * relayer/src/engine/tx-lifecycle.ts): re-pricing adds an attempt with the same nonce and higher
 * fees. The signed bytes are left out: not secret, but large, and the hash names them.
 */
export const transactionAttempt = z.object({
  hash: z.string(),
  nonce: z.number().int().nullable().describe("the nonce it was signed with"),
  type: z
    .number()
    .int()
    .nullable()
    .describe("2 (EIP-1559) or 0 (legacy: both fee fields are the gas price); null if unrecorded"),
  maxFeePerGas: z.string().describe("wei per gas, decimal"),
  maxPriorityFeePerGas: z.string().describe("wei per gas, decimal"),
  sentAt: z.string(),
  refused: z
    .string()
    .nullable()
    .describe("why the node refused this attempt for good (it can never be mined)"),
  superseded: z
    .string()
    .nullable()
    .describe("hash of the transaction that took this attempt's nonce (it can never be mined)"),
  outOfGas: z
    .boolean()
    .describe("mined and ran out of gas: the write was re-estimated and sent with a new nonce"),
  reorgedFrom: z
    .number()
    .int()
    .nullable()
    .describe("block it was mined in before a reorg dropped that block"),
});

/** One broadcast attempt of a write. */
export type TransactionAttempt = z.output<typeof transactionAttempt>;

/** The state of a write (`GET /api/v1/transactions/{id}`). */
export const transactionStatus = z.object({
  transactionId: z.string(),
  kind: z.string(),
  status: z.enum(TRANSACTION_STATES),
  nonce: z.number().int().nullable(),
  hashes: z.array(z.string()).describe("every broadcast hash (re-pricing adds one)"),
  attempts: z
    .array(transactionAttempt)
    .describe("every broadcast, oldest first, with its fees (a batch: its items' attempts)"),
  receipt: z
    .object({
      hash: z.string(),
      blockNumber: z.number().int(),
      blockHash: z.string(),
      status: z.number().int(),
      gasUsed: z.string(),
      effectiveGasPrice: z.string(),
    })
    .nullable(),
  result: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe("the write's response body once final"),
  error: z
    .string()
    .nullable()
    .describe(
      "why a failed or replaced write failed, in the words the synchronous call answers with " +
        "(`Transaction failed: <reason>`, or `Listing not active` for a lost race)",
    ),
  errorStatus: z
    .number()
    .int()
    .nullable()
    .describe("the HTTP status the synchronous call answers with `error` (400 or 500)"),
  lastError: z
    .string()
    .nullable()
    .describe("transient problem while still live (e.g. RPC unavailable)"),
  createdAt: z.string(),
  updatedAt: z.string(),
  sentAt: z.string().nullable(),
  minedAt: z
    .string()
    .nullable()
    .describe("when the engine saw it in a block (then `mined` until its confirmations)"),
  confirmations: z
    .object({
      blocksAbove: z
        .number()
        .int()
        .nullable()
        .describe("blocks on the chain above the receipt's block now; null before it is mined"),
      required: z
        .number()
        .int()
        .describe("blocks that must stand above it before it is confirmed (CONFIRMATIONS)"),
    })
    .describe(
      "how far a mined write is from confirmed (for a batch `blocksAbove` is null: see its items)",
    ),
  confirmedAt: z.string().nullable(),
  failedAt: z.string().nullable(),
  stuck: z
    .object({
      since: z.string().describe("ISO 8601: when the engine marked it"),
      reason: z.enum(STUCK_REASONS).describe(STUCK_REASONS_TEXT),
    })
    .nullable()
    .describe(
      "set while a sent write is stuck (`transaction.stuck` is sent once); null otherwise. " +
        "Cancel it, speed it up, or wait",
    ),
});

/** The state of a write. */
export type TransactionStatus = z.output<typeof transactionStatus>;

/** The 202 body of a write answered before it is final (`Prefer: respond-async`, or a timeout). */
export const writeAccepted = z.object({ transactionId: z.string(), status: z.string() });

/** The 202 body of a write. */
export type WriteAccepted = z.output<typeof writeAccepted>;
