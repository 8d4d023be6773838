import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, before, describe, it } from "node:test";
import { startWriteStack, type WriteStack } from "../writes/helpers.js";

/** The part of newman's library API this test uses (newman ships no types). */
interface NewmanSummary {
  run: {
    failures: Array<{ error: { message: string; test?: string }; source?: { name?: string } }>;
    executions: Array<{
      item: { name: string };
      response?: { code: number };
      assertions?: Array<{ assertion: string; error?: { message: string } }>;
    }>;
  };
}
interface Newman {
  run(
    options: Record<string, unknown>,
    callback: (error: Error | null, summary: NewmanSummary) => void,
  ): void;
}
const newman = createRequire(import.meta.url)("newman") as Newman;

describe("the generated Postman collection runs with newman", () => {
  let stack: WriteStack;

  before(async () => {
    stack = await startWriteStack();
  });
  after(() => stack?.stop());

  it("newman run of /postman.json passes the main flow's assertions end to end against a fresh stack", async () => {
    const res = await stack.api("GET", "/postman.json");
    assert.equal(res.status, 200);
    const summary = await new Promise<NewmanSummary>((resolve, reject) => {
      newman.run(
        {
          collection: res.body,
          // Only what a user sets by hand; every other variable comes from the responses.
          environment: {
            values: [
              { key: "baseUrl", value: stack.baseUrl, enabled: true },
              { key: "adminToken", value: stack.adminToken, enabled: true },
            ],
          },
          timeoutRequest: 60_000,
          reporters: [],
        },
        (error, result) => (error === null ? resolve(result) : reject(error)),
      );
    });
    const flow = summary.run.executions.filter((e) => /^\d+\. /.test(e.item.name));
    const names = [...new Set(flow.map((e) => e.item.name))];
    assert.ok(names.includes("6. Buy it from the second organization"), names.join(", "));
    assert.ok(names.includes("9. Delist it"), names.join(", "));
    assert.ok(
      names.some((name) => name.endsWith(". Read the seller's audit log")),
      names.join(", "),
    );
    const assertions = flow.flatMap((e) => e.assertions ?? []);
    assert.ok(assertions.length >= 15, `${assertions.length} assertions ran`);
    assert.deepEqual(
      summary.run.failures.map((f) => `${f.source?.name ?? "?"}: ${f.error.message}`),
      [],
    );
    // The reference requests after the flow use its ids and key: none may answer 5xx, save the
    // console page (503 until its static export is built, which this test stack does not do).
    const serverErrors = summary.run.executions
      .filter((e) => (e.response?.code ?? 0) >= 500 && !/console/i.test(e.item.name))
      .map((e) => `${e.item.name}: ${e.response?.code}`);
    assert.deepEqual(serverErrors, []);
  });
});
