import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { requestHash, requestHashes } from "../../../relayer/src/writes/idempotency.js";
import { canonicalJson } from "../../../relayer/src/shared/canonical-json.js";

const MASTER_KEY = "ab".repeat(32);
const OTHER_KEY = "cd".repeat(32);

describe("idempotency request hash", () => {
  const body = {
    assetType: "Bond",
    name: "Vault",
    description: "d",
    password: "hunter2",
  };

  it("cannot be recomputed offline from a guessed password without the master key", () => {
    const stored = requestHash("issue-asset", body, MASTER_KEY);
    // What an attacker holding a database dump would try for each guessed password.
    const guess = (password: string) =>
      createHash("sha256")
        .update("issue-asset")
        .update("\n")
        .update(canonicalJson({ ...body, password }))
        .digest("hex");
    assert.notEqual(stored, guess("hunter2"), "an unkeyed hash of the right guess matches");
    assert.notEqual(stored, requestHash("issue-asset", body, OTHER_KEY));
    assert.match(stored, /^[0-9a-f]{64}$/);
  });

  it("is stable for the same request under the same key and differs for another body or kind", () => {
    const reordered = { password: "hunter2", description: "d", name: "Vault", assetType: "Bond" };
    assert.equal(
      requestHash("issue-asset", body, MASTER_KEY),
      requestHash("issue-asset", reordered, MASTER_KEY),
    );
    assert.notEqual(
      requestHash("issue-asset", body, MASTER_KEY),
      requestHash("issue-asset", { ...body, password: "hunter3" }, MASTER_KEY),
    );
    assert.notEqual(
      requestHash("issue-asset", body, MASTER_KEY),
      requestHash("batch-issue", body, MASTER_KEY),
    );
  });

  it("during a master-key rotation a record made under the previous key still counts as the same request", () => {
    const { hash, accepted } = requestHashes("issue-asset", body, {
      masterKey: OTHER_KEY,
      masterKeyPrevious: MASTER_KEY,
    });
    assert.equal(hash, requestHash("issue-asset", body, OTHER_KEY), "recorded under the new key");
    assert.deepEqual(accepted, [hash, requestHash("issue-asset", body, MASTER_KEY)]);
    assert.deepEqual(requestHashes("issue-asset", body, { masterKey: OTHER_KEY }).accepted, [hash]);
  });
});
