import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { createApp } from "../../../relayer/src/http/app.js";
import { startTestStack, type TestStack } from "../../support/stack.js";

/**
 * Operator console sessions end when the admin token changes: a relayer restarted with a new
 * ADMIN_TOKEN (here: a second app on the same database with the new token) refuses every
 * cookie opened with the old one.
 */
describe("operator console sessions and the admin token", () => {
  let stack: TestStack;
  let rotated: Server;
  let rotatedUrl: string;
  const newToken = `ent_admin_${randomBytes(32).toString("hex")}`;

  before(async () => {
    stack = await startTestStack({ logLevel: "warn" });
    const app = createApp({ ...stack.ctx, config: { ...stack.ctx.config, adminToken: newToken } });
    rotated = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => rotated.once("listening", resolve));
    rotatedUrl = `http://127.0.0.1:${(rotated.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => rotated?.close(resolve));
    await stack?.stop();
  });

  async function signIn(baseUrl: string, adminToken: string): Promise<string> {
    const res = await fetch(`${baseUrl}/api/console/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ adminToken }),
    });
    assert.equal(res.status, 200, await res.text());
    const cookie = /rwa_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
    assert.ok(cookie !== undefined);
    return `rwa_session=${cookie}`;
  }

  const get = (baseUrl: string, path: string, cookie: string) =>
    fetch(`${baseUrl}${path}`, { headers: { cookie } }).then((res) => res.status);

  it("an operator session opened with the old admin token is refused once the token changed", async () => {
    const cookie = await signIn(stack.baseUrl, stack.adminToken);
    assert.equal(await get(stack.baseUrl, "/api/console/session", cookie), 200);
    assert.equal(await get(stack.baseUrl, "/api/enterprise/orgs", cookie), 200);

    assert.equal(await get(rotatedUrl, "/api/console/session", cookie), 401);
    assert.equal(await get(rotatedUrl, "/api/enterprise/orgs", cookie), 403);
    // Ended for good: the row is revoked, not merely unreadable under the new token.
    assert.equal(await get(stack.baseUrl, "/api/console/session", cookie), 401);
  });

  it("a session opened with the new token works there and not under the old one", async () => {
    const cookie = await signIn(rotatedUrl, newToken);
    assert.equal(await get(rotatedUrl, "/api/enterprise/orgs", cookie), 200);
    assert.equal(await get(stack.baseUrl, "/api/enterprise/orgs", cookie), 403);
  });

  it("org console sessions do not depend on the admin token", async () => {
    const org = await stack.registerOrg();
    const res = await fetch(`${stack.baseUrl}/api/console/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ apiKey: org.apiKey }),
    });
    assert.equal(res.status, 200);
    const cookie = `rwa_session=${/rwa_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")![1]!}`;
    assert.equal(await get(rotatedUrl, "/api/console/session", cookie), 200);
  });
});
