import { isError } from "ethers";
import type { NextFunction, Request, Response } from "express";
import type { Logger } from "pino";
import {
  BaseError,
  ConflictError,
  GoneError,
  TransactionStateError,
  DatabaseUnavailableError,
  ForbiddenError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitError,
  RpcUnavailableError,
  SentTransactionError,
  TransactionFailedError,
  UnauthorizedError,
  UnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
} from "../errors.js";
import { requestIdOf } from "./request-context.js";

/**
 * The one place where error classes become HTTP statuses. Order matters: subclasses first.
 */
const STATUS_BY_CLASS: ReadonlyArray<
  readonly [abstract new (...args: never[]) => BaseError, number]
> = [
  [ValidationError, 400],
  [UnauthorizedError, 401],
  [ForbiddenError, 403],
  [NotFoundError, 404],
  [ConflictError, 409],
  [GoneError, 410],
  [PayloadTooLargeError, 413],
  [UnsupportedMediaTypeError, 415],
  [RateLimitError, 429],
  [TransactionFailedError, 500],
  [UnavailableError, 503],
];

/** PostgreSQL SQLSTATEs meaning "the server is unreachable or refusing connections". */
const PG_UNAVAILABLE_CODES = new Set([
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
]);
const NET_UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENOTFOUND",
  "EPIPE",
]);

/** Walks `cause` chains (Drizzle wraps pg errors) looking for a match. */
function someCause(error: unknown, predicate: (e: unknown) => boolean): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== undefined && current !== null; depth += 1) {
    if (predicate(current)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

function isDatabaseUnavailable(error: unknown): boolean {
  return someCause(error, (e) => {
    const code = (e as { code?: unknown }).code;
    if (
      typeof code === "string" &&
      (PG_UNAVAILABLE_CODES.has(code) || NET_UNAVAILABLE_CODES.has(code))
    )
      return true;
    const message = (e as { message?: unknown }).message;
    return (
      typeof message === "string" &&
      /Connection terminated|timeout exceeded when trying to connect|Cannot use a pool after calling end|encountered a connection error and is not queryable/i.test(
        message,
      )
    );
  });
}

/**
 * PostgreSQL refusing a text value it cannot store (a NUL byte: 22021; a character without a
 * mapping: 22P05). Only request input reaches queries as such text, so it is the caller's error.
 */
function isUnstorableText(error: unknown): boolean {
  return someCause(error, (e) => {
    const code = (e as { code?: unknown }).code;
    return code === "22021" || code === "22P05";
  });
}

function isRpcUnavailable(error: unknown): boolean {
  return someCause(
    error,
    (e) => isError(e, "NETWORK_ERROR") || isError(e, "TIMEOUT") || isError(e, "SERVER_ERROR"),
  );
}

/**
 * Classifies any thrown value as one of the relayer's errors. Unknown errors that are really an
 * unreachable database or chain node become 503s; anything else stays unknown (500).
 */
export function classifyError(error: unknown): BaseError | undefined {
  if (error instanceof BaseError) return error;
  // Express' router throws URIError (status 400) for a path parameter that is not valid %-encoding.
  if (error instanceof URIError) return new ValidationError("Malformed URL", { cause: error });
  if (isRpcUnavailable(error)) return new RpcUnavailableError({ cause: error });
  if (isDatabaseUnavailable(error)) return new DatabaseUnavailableError({ cause: error });
  if (isUnstorableText(error))
    return new ValidationError("Invalid characters in request", { cause: error });
  return undefined;
}

/** HTTP status of a classified error. */
export function statusOf(error: BaseError): number {
  for (const [klass, status] of STATUS_BY_CLASS) if (error instanceof klass) return status;
  return 500;
}

/**
 * Express error middleware: answers `{ "error": "<message>" }` with the class's status (and
 * `txHash` for a `SentTransactionError`, answered as its cause), sets
 * `Retry-After` on 429 (and on 503), and answers unknown errors with 500 `Internal error`, logging
 * them with the request id so operators can find the cause without leaking it to the client.
 */
export function errorHandler(logger: Logger) {
  return (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const requestId = requestIdOf(res);
    // A failure after a broadcast answers as its cause would, naming the transaction.
    const sent = error instanceof SentTransactionError ? error : undefined;
    const txHash = sent === undefined ? {} : { txHash: sent.transactionHash };
    if (sent !== undefined) res.setHeader("X-Transaction-Hash", sent.transactionHash);
    const known = classifyError(sent === undefined ? error : sent.cause);
    if (known === undefined) {
      logger.error(
        {
          err: error,
          requestId,
          method: req.method,
          path: req.originalUrl.split("?")[0],
          ...txHash,
        },
        "unhandled error",
      );
      res.status(500).json({ error: "Internal error", ...txHash });
      return;
    }
    const status = statusOf(known);
    if (status >= 500) {
      logger.error(
        { err: known, cause: known.cause, requestId, details: known.details, ...txHash },
        known.message,
      );
    } else {
      logger.debug(
        { requestId, status, error: known.message, details: known.details, ...txHash },
        "request rejected",
      );
    }
    if (known instanceof RateLimitError)
      res.setHeader("Retry-After", String(known.retryAfterSeconds));
    else if (known instanceof UnavailableError) res.setHeader("Retry-After", "5");
    const state = known instanceof TransactionStateError ? { status: known.state } : {};
    res.status(status).json({ error: known.message, ...state, ...txHash });
  };
}

/** Final middleware: any request no route answered is 404 `Not found`. */
export function notFound(_req: Request, _res: Response, next: NextFunction): void {
  next(new NotFoundError());
}
