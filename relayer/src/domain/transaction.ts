import { z } from "zod";

/**
 * The states of a write's transaction as `GET /api/v1/transactions/{id}` reports them: the
 * engine's lifecycle states (relayer/src/chain/tx-lifecycle.ts).
 */
export const TRANSACTION_STATES = ["queued", "sent", "confirmed", "failed", "replaced"] as const;

/** One transaction state. */
export type TransactionState = (typeof TRANSACTION_STATES)[number];

/** The state of a write (`GET /api/v1/transactions/{id}`). */
export const transactionStatus = z.object({
  transactionId: z.string(),
  kind: z.string(),
  status: z.enum(TRANSACTION_STATES),
  nonce: z.number().int().nullable(),
  hashes: z.array(z.string()).describe("every broadcast hash (re-pricing adds one)"),
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
  error: z.string().nullable(),
  lastError: z
    .string()
    .nullable()
    .describe("transient problem while still live (e.g. RPC unavailable)"),
  createdAt: z.string(),
  updatedAt: z.string(),
  sentAt: z.string().nullable(),
  confirmedAt: z.string().nullable(),
  failedAt: z.string().nullable(),
});

/** The state of a write. */
export type TransactionStatus = z.output<typeof transactionStatus>;

/** The 202 body of a write answered before it is final (`Prefer: respond-async`, or a timeout). */
export const writeAccepted = z.object({ transactionId: z.string(), status: z.string() });

/** The 202 body of a write. */
export type WriteAccepted = z.output<typeof writeAccepted>;
