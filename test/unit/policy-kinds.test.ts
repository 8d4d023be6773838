import assert from "node:assert/strict";
import { test } from "node:test";
import { POLICY_WRITE_KINDS } from "../../relayer/src/domain/policy.js";
import { WRITE_KINDS } from "../../relayer/src/writes/kinds/index.js";

test("a policy rule names exactly the write kinds of the registry", () => {
  assert.deepEqual([...POLICY_WRITE_KINDS].sort(), WRITE_KINDS.map((k) => k.kind).sort());
});
