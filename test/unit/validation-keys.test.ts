import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { dropNullOptionals } from "../../relayer/src/http/validation.js";

describe("request body pre-processing", () => {
  const schema = z.strictObject({ name: z.string(), note: z.string().optional() });

  it("keeps keys named __proto__ and constructor as keys, so the schema refuses them", () => {
    const body = JSON.parse(
      '{"name":"x","__proto__":{"polluted":true},"constructor":{}}',
    ) as unknown;
    const copy = dropNullOptionals(schema, body) as Record<string, unknown>;
    assert.deepEqual(Object.keys(copy).sort(), ["__proto__", "constructor", "name"]);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.equal(schema.safeParse(copy).success, false);
  });

  it("drops an optional field sent as null and keeps a required one", () => {
    assert.deepEqual(dropNullOptionals(schema, { name: null, note: null }), { name: null });
  });
});
