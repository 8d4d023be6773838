import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as errors from "../../relayer/src/errors.js";
import { classifyError, statusOf } from "../../relayer/src/http/error-handler.js";

const {
  ApiKeyExpiredError,
  NotFoundError,
  OrgSuspendedError,
  RateLimitError,
  RpcUnavailableError,
  SentTransactionError,
  UnauthorizedError,
  UnavailableError,
  ValidationError,
} = errors;

describe("error classes", () => {
  it("every class in errors.ts is named after itself, subclasses included", () => {
    const classes = Object.entries(errors).filter(
      (entry): entry is [string, typeof errors.BaseError] =>
        typeof entry[1] === "function" && entry[1].prototype instanceof Error,
    );
    assert.ok(classes.length >= 18, `found ${classes.length}`);
    for (const [exported, Class] of classes) {
      const error = Reflect.construct(Class, ["message"]) as Error;
      assert.equal(error.name, exported);
      assert.ok(String(error.stack).startsWith(`${exported}: `), exported);
    }
  });

  it("classes with a fixed answer carry it, with the details and cause they were given", () => {
    const cause = new Error("socket hang up");
    const cases: Array<[Error & { details?: unknown }, string]> = [
      [new UnauthorizedError({ details: { reason: "no API key" } }), "Unauthorized"],
      [new ApiKeyExpiredError({ details: { reason: "no API key" } }), "API key expired"],
      [new OrgSuspendedError({ details: { reason: "no API key" } }), "Organization suspended"],
      [new RpcUnavailableError({ cause, details: { reason: "no API key" } }), "RPC unavailable"],
    ];
    for (const [error, message] of cases) {
      assert.equal(error.message, message);
      assert.deepEqual(error.details, { reason: "no API key" });
    }
    assert.equal(cases[3]![0].cause, cause);
    assert.equal(new NotFoundError().message, "Not found");
    assert.equal(new NotFoundError("Asset not found").message, "Asset not found");
  });

  it("an error without a cause has no cause property, as a plain Error", () => {
    assert.equal(Object.hasOwn(new ValidationError("Invalid cursor"), "cause"), false);
  });

  it("subclasses answer the status of their parent class (an expired key 401, a suspended org 403)", () => {
    assert.ok(new ApiKeyExpiredError() instanceof UnauthorizedError);
    assert.ok(new RpcUnavailableError() instanceof UnavailableError);
    assert.equal(statusOf(new ApiKeyExpiredError()), 401);
    assert.equal(statusOf(new OrgSuspendedError()), 403);
    assert.equal(statusOf(new RpcUnavailableError()), 503);
    assert.equal(statusOf(new ValidationError("Invalid cursor")), 400);
  });

  it("RateLimitError rounds Retry-After up to whole seconds, at least 1", () => {
    assert.equal(new RateLimitError(0).retryAfterSeconds, 1);
    assert.equal(new RateLimitError(2.1).retryAfterSeconds, 3);
    assert.equal(new RateLimitError(5, "Too many").message, "Too many");
  });

  it("SentTransactionError names the hash and keeps the cause the handler answers with", () => {
    const error = new SentTransactionError("0xab", new RpcUnavailableError());
    assert.equal(error.message, "transaction 0xab sent, then: RPC unavailable");
    assert.equal(error.transactionHash, "0xab");
    assert.equal(classifyError(error.cause)?.message, "RPC unavailable");
  });
});
