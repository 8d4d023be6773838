/**
 * Options of the client's calls, and the shape of a write method (one per write kind of the
 * relayer's registry, `relayer/src/writes/kinds/index.ts`).
 */
import type { z } from "zod";
import type { RegisteredWriteKind } from "../src/writes/kinds/index.js";
import type { WriteAccepted } from "./types.js";

/** Per-call options. */
export interface RequestOptions {
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
}

/** Options of a write. */
export interface WriteOptions extends RequestOptions {
  /**
   * Sent as `Idempotency-Key`. Default: a fresh UUID per call, reused by every retry of that
   * call, so a retried write never issues twice. Pass your own to make retries across calls
   * (or processes) safe too.
   */
  idempotencyKey?: string;
  /** `"respond-async"`: answer at once with the transaction id (poll with `waitForTransaction`). */
  prefer?: "respond-async";
  /**
   * When the relayer answers 202 to a synchronous call (the receipt took longer than its wait),
   * poll the transaction until final for at most this long. Default 300 000 ms.
   */
  waitTimeoutMs?: number;
}

/** A write's result type: with `prefer: "respond-async"` the answer may be the 202 body. */
export type WriteResult<T, O> = O extends { prefer: "respond-async" } ? T | WriteAccepted : T;

/** The registered write kind served at `path`. */
type KindAt<P extends WritePath> = Extract<RegisteredWriteKind, { path: P }>;

/** The path of a registered write kind (`"/api/v1/write/issue-asset"`, ...). */
export type WritePath = RegisteredWriteKind["path"];
/** The request body of the write at `path`. */
export type WriteInput<P extends WritePath> = z.input<KindAt<P>["request"]>;
/** The 200 body of the write at `path`. */
export type WriteOutput<P extends WritePath> = z.output<KindAt<P>["response"]>;

/** A write method of the client: the body, then options; the result of the kind at `path`. */
export type WriteMethod<P extends WritePath> = <O extends WriteOptions = WriteOptions>(
  input: WriteInput<P>,
  options?: O,
) => Promise<WriteResult<WriteOutput<P>, O>>;
