import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStack, type WriteStack } from "./helpers.js";
import { assertError } from "../../support/assert-error.js";

describe("field rules: type names in bytes, image URL schemes", { timeout: 120_000 }, () => {
  let stack: WriteStack;
  let registrar: TestOrg;

  before(async () => {
    stack = await startWriteStack({ config: { webhookAllowLocal: false } });
    registrar = await stack.registerOrg({ scopes: ["read", "write:all", "admin:types"] });
  });
  after(() => stack?.stop());

  const tooLong = "é".repeat(64); // 64 characters, 128 bytes: over the registry's 64-byte limit
  const message = "Invalid field: typeName (must be at most 64 bytes in UTF-8)";

  it("register-asset-type answers 400 (not 500) for a 64-character name in multibyte characters", async () => {
    for (const typeName of [tooLong, "😀".repeat(17)]) {
      const res = await registrar.api("POST", "/api/v1/write/register-asset-type", {
        body: { typeName },
      });
      assertError(res, 400, message);
    }
  });

  it("a multibyte name of exactly 64 bytes is registered", async () => {
    const res = await registrar.api("POST", "/api/v1/write/register-asset-type", {
      body: { typeName: "é".repeat(32) },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.typeName, "é".repeat(32));
  });

  it("the operator's asset-type route answers 400 for it too", async () => {
    const res = await stack.api("POST", "/api/console/operator/asset-types", {
      adminToken: stack.adminToken,
      body: { typeName: tooLong },
    });
    assertError(res, 400, message);
  });

  it("image accepts https: and ipfs: only where local targets are not allowed", async () => {
    for (const image of [
      "http://example.com/a.png",
      "ftp://example.com/a.png",
      "data:image/png;base64,AAAA",
    ]) {
      const res = await registrar.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ image }),
      });
      assertError(
        res,
        400,
        "Invalid field: image (must be an https/ipfs URL)",
        `${image}: ${res.text}`,
      );
    }
    for (const image of [
      "https://example.com/a.png",
      "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
    ]) {
      const res = await registrar.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ image }),
      });
      assert.equal(res.status, 200, `${image}: ${res.text}`);
    }
  });

  it("plain http: images are accepted where local targets are allowed (development)", async () => {
    stack.ctx.config.webhookAllowLocal = true;
    try {
      const res = await registrar.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ image: "http://127.0.0.1:3000/a.png" }),
      });
      assert.equal(res.status, 200, res.text);
    } finally {
      stack.ctx.config.webhookAllowLocal = false;
    }
  });
});
