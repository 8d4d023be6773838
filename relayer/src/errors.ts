/**
 * The relayer's error classes. Every error the API can answer with is one of these; the HTTP
 * status for each class is assigned in exactly one place (`http/error-handler.ts`).
 *
 * `message` is the client-facing string (the spec's exact strings where it has one);
 * `details` is extra, log-only context; `cause` chains the underlying error.
 */

/** What any error may carry besides its message. */
export interface BaseErrorOptions {
  cause?: unknown;
  details?: Record<string, unknown>;
}

export class BaseError extends Error {
  /** The class's own name (`ValidationError`, ...), for every subclass. */
  override name = this.constructor.name;
  readonly details: Record<string, unknown> | undefined;

  constructor(message: string, options: BaseErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.details = options.details;
  }
}

/** 400: the request is malformed or fails validation (`Missing required field: x`, ...). */
export class ValidationError extends BaseError {}

/**
 * 401: missing, malformed, unknown or revoked credentials. Message is `Unauthorized` (an expired
 * key: `ApiKeyExpiredError`).
 */
export class UnauthorizedError extends BaseError {
  constructor(options: BaseErrorOptions = {}) {
    super("Unauthorized", options);
  }
}

/**
 * 401 `Invalid credentials`: a console sign-in with an unknown email, a wrong password or a wrong
 * (or already used) code: one answer for all three, so it tells nobody which was wrong.
 */
export class InvalidCredentialsError extends UnauthorizedError {
  constructor(options: BaseErrorOptions = {}) {
    super(options);
    this.message = "Invalid credentials";
  }
}

/** 401 `API key expired`: a known, unrevoked key past the `expiresAt` it was created with. */
export class ApiKeyExpiredError extends UnauthorizedError {
  constructor(options: BaseErrorOptions = {}) {
    super(options);
    this.message = "API key expired";
  }
}

/** 403: authenticated but not allowed (`Insufficient scope`, `Admin token required`). */
export class ForbiddenError extends BaseError {}

/** 403 `Organization suspended`: the caller's organization is held by operator staff. */
export class OrgSuspendedError extends ForbiddenError {
  constructor(options: BaseErrorOptions = {}) {
    super("Organization suspended", options);
  }
}

/**
 * 403 `Policy: <reason>`: the organization's own policy (docs/policy.md) refuses the write, a
 * destination off its allowlist or a transfer over its daily limit. Nothing was recorded or signed.
 */
export class PolicyViolationError extends ForbiddenError {
  constructor(reason: string, options: BaseErrorOptions = {}) {
    super(`Policy: ${reason}`, options);
  }
}

/** 404: unknown route or id. */
export class NotFoundError extends BaseError {
  constructor(message = "Not found", options: BaseErrorOptions = {}) {
    super(message, options);
  }
}

/** 409: conflicts such as an idempotency key reused with another body. */
export class ConflictError extends BaseError {}

/** 410: a single-use link used already, or expired (an invitation). */
export class GoneError extends BaseError {}
/**
 * 409 about a write's state: what was asked cannot be done in the state it is in (cancelling a
 * confirmed write). The answer carries the state beside the error (`status`).
 */
export class TransactionStateError extends ConflictError {
  readonly state: string;
  constructor(message: string, state: string, options: BaseErrorOptions = {}) {
    super(message, options);
    this.state = state;
  }
}

/** 413: body over the size limit. */
export class PayloadTooLargeError extends BaseError {}

/** 415: the body is not `application/json`. */
export class UnsupportedMediaTypeError extends BaseError {}

/** 429: a rate limit or queue limit was hit; `retryAfterSeconds` becomes `Retry-After`. */
export class RateLimitError extends BaseError {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number, message = "Rate limit exceeded") {
    super(message);
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterSeconds));
  }
}

/** 500: an on-chain revert. Message is `Transaction failed: <reason>`. */
export class TransactionFailedError extends BaseError {
  readonly reason: string;
  constructor(reason: string, options: BaseErrorOptions = {}) {
    super(`Transaction failed: ${reason}`, options);
    this.reason = reason;
  }
}

/**
 * Retryable infrastructure failures. Workers retry these; the API answers 503.
 * Subclasses name the component that is down.
 */
export class UnavailableError extends BaseError {
  /** Always: try again later. */
  readonly retryable: boolean = true;
}

/** 503 `RPC unavailable`: the chain node cannot be reached. */
export class RpcUnavailableError extends UnavailableError {
  constructor(options: BaseErrorOptions = {}) {
    super("RPC unavailable", options);
  }
}

/** 503 `Database unavailable`: PostgreSQL cannot be reached. */
export class DatabaseUnavailableError extends UnavailableError {
  constructor(options: BaseErrorOptions = {}) {
    super("Database unavailable", options);
  }
}

/**
 * 503 `HSM unavailable`: the PKCS#11 token that holds custodial keys cannot sign or generate a
 * key now (it went away, its sessions were lost, it is full). Writes already queued stay queued
 * and are signed once it answers again; `details` says what the token reported (logged only).
 */
export class HsmUnavailableError extends UnavailableError {
  constructor(message = "HSM unavailable", options: BaseErrorOptions = {}) {
    super(message, options);
  }
}

/**
 * An error raised after a transaction was signed and handed to the node: the broadcast's answer,
 * the receipt look-up or the receipt itself failed. The transaction may be on chain, so the
 * answer names it: the error handler answers `cause` as it would alone (its status and words)
 * and adds `txHash` to the body and the `X-Transaction-Hash` header (docs/contracts.md "Compliance
 * controls"), as a write's answers carry `X-Transaction-Id`.
 */
export class SentTransactionError extends BaseError {
  readonly transactionHash: string;
  constructor(transactionHash: string, cause: unknown) {
    super(`transaction ${transactionHash} sent, then: ${messageOf(cause)}`, {
      cause,
      details: { transactionHash },
    });
    this.transactionHash = transactionHash;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A configuration problem found at start; names the variable. Never reaches HTTP. */
export class ConfigError extends BaseError {}
