import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { RwaClient } from "../../../relayer/sdk/index.js";
import {
  WRITE_METHODS_FILE,
  writeMethodsSource,
} from "../../../relayer/sdk/generate-write-methods.js";
import { WRITE_KINDS } from "../../../relayer/src/writes/kinds/index.js";

describe("SDK write methods", () => {
  it("write-methods.ts is generated from the current write-kind registry", async () => {
    assert.equal(
      readFileSync(WRITE_METHODS_FILE, "utf8"),
      await writeMethodsSource(),
      "stale: run `node --import tsx relayer/sdk/generate-write-methods.ts`",
    );
  });

  it("the client has a method per write kind that posts to the kind's path", async () => {
    const seen: string[] = [];
    const client = new RwaClient({
      apiKey: `rwa_live_${"ab".repeat(32)}`,
      baseUrl: "http://relayer.test",
      fetch: (url) => {
        seen.push(new URL(url).pathname);
        return Promise.resolve(Response.json({ success: true }));
      },
    });
    const methods = client as unknown as Record<string, (input: unknown) => Promise<unknown>>;
    for (const kind of WRITE_KINDS) {
      assert.equal(typeof methods[kind.docs.operationId], "function", kind.docs.operationId);
      await methods[kind.docs.operationId]!({ assets: [] });
    }
    assert.deepEqual(
      seen,
      WRITE_KINDS.map((k) => k.path),
    );
  });
});
