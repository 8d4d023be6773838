import assert from "node:assert/strict";
import type { ApiResponse } from "./http-request.js";

/**
 * Asserts an error answer: `status`, and a body that is exactly `{ error }` (docs/sdk.md
 * "Errors and retries").
 *
 * @param message shown when the status differs; the answer's text by default
 * @example
 * assertError(await org.api("GET", "/api/v1/assets/0x"), 400, "Invalid field: tokenId");
 */
export function assertError(
  res: ApiResponse,
  status: number,
  error: string,
  message: string = res.text,
): void {
  assert.equal(res.status, status, message);
  assert.deepEqual(res.body, { error });
}
