import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestStack, type TestOrg, type TestStack } from "../../support/stack.js";
import { assertError } from "../../support/assert-error.js";

const METRICS_TOKEN = "metrics-scrape-token-0123456789abcdef";

describe("HTTP protocol: bodies, headers, auth forms, errors, metrics", () => {
  let stack: TestStack;
  let org: TestOrg;

  before(async () => {
    stack = await startTestStack({ config: { metricsToken: METRICS_TOKEN } });
    org = await stack.registerOrg({ plan: "enterprise" });
  });
  after(async () => {
    await stack?.stop();
  });

  it("GET /healthz answers ok without auth", async () => {
    const res = await stack.api("GET", "/healthz");
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: "ok" });
    assert.equal(res.headers.get("x-powered-by"), null);
    assert.match(res.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  });

  it("GET / answers links to the docs, console, OpenAPI, SDK and status, and every link answers", async () => {
    const res = await stack.api("GET", "/");
    assert.equal(res.status, 200);
    const { links } = res.body as { links: Record<string, string> };
    for (const name of ["docs", "console", "openapi", "sdk", "status"]) {
      assert.equal(typeof links[name], "string", `links.${name}`);
    }
    for (const [name, link] of Object.entries(links)) {
      const target = await fetch(`${stack.baseUrl}${link}`, { redirect: "manual" });
      assert.ok(target.status < 400 || target.status === 503, `${name} ${link}: ${target.status}`);
    }
  });

  it("echoes a well-formed X-Request-Id and replaces a malformed one", async () => {
    const ok = await stack.api("GET", "/healthz", { headers: { "x-request-id": "trace-123" } });
    assert.equal(ok.headers.get("x-request-id"), "trace-123");
    const bad = await stack.api("GET", "/healthz", {
      headers: { "x-request-id": "x".repeat(200) },
    });
    assert.notEqual(bad.headers.get("x-request-id"), "x".repeat(200));
  });

  it("unknown routes and methods are 404 Not found", async () => {
    for (const [method, path] of [
      ["GET", "/nope"],
      ["GET", "/api/enterprise"],
      ["PUT", "/api/enterprise/keys"],
      ["POST", "/api/enterprise/wallet"],
    ] as const) {
      const res = await org.api(method, path, method === "GET" ? {} : { body: {} });
      assertError(res, 404, "Not found", `${method} ${path}`);
    }
  });

  it("malformed JSON is 400 Malformed JSON body", async () => {
    for (const body of ["{bad", '{"scopes": ["read"]', "", "nul", '"just a string"', "42"]) {
      const res = await org.api("POST", "/api/enterprise/keys", {
        body,
        headers: { "content-type": "application/json" },
      });
      if (body === "") {
        assertError(res, 400, "Missing required field: scopes");
        continue;
      }
      assertError(res, 400, "Malformed JSON body", body);
    }
  });

  it("a body with another content type is 415", async () => {
    for (const type of [
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
    ]) {
      const res = await org.api("POST", "/api/enterprise/keys", {
        body: '{"scopes":["read"]}',
        headers: { "content-type": type },
      });
      assertError(res, 415, "Content-Type must be application/json", type);
    }
    const noType = await fetch(`${stack.baseUrl}/api/enterprise/keys`, {
      method: "POST",
      headers: { "x-api-key": org.apiKey },
      body: new Uint8Array(Buffer.from('{"scopes":["read"]}')),
    });
    assert.equal(noType.status, 415);
    const charset = await org.api("POST", "/api/enterprise/keys", {
      body: '{"scopes":["read"]}',
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    assert.equal(charset.status, 200);
  });

  it("an oversize body is 413", async () => {
    const res = await org.api("POST", "/api/enterprise/keys", {
      body: { scopes: ["read"], label: "x".repeat(300 * 1024) },
    });
    assertError(res, 413, "Request body too large");
  });

  it("a malformed %-encoded path parameter is 400 Malformed URL", async () => {
    for (const path of ["/api/enterprise/keys/%ZZ", "/api/enterprise/webhooks/%E0%A4%A"]) {
      const res = await org.api("DELETE", path);
      assertError(res, 400, "Malformed URL", path);
    }
  });

  it("compressed bodies are inflated; corrupt ones are 400, unknown charsets 415", async () => {
    const { gzipSync } = await import("node:zlib");
    const post = (body: Uint8Array | string, headers: Record<string, string>) =>
      fetch(`${stack.baseUrl}/api/enterprise/keys`, {
        method: "POST",
        headers: { "x-api-key": org.apiKey, ...headers },
        body,
      });
    const gz = await post(new Uint8Array(gzipSync('{"scopes":["read"]}')), {
      "content-type": "application/json",
      "content-encoding": "gzip",
    });
    assert.equal(gz.status, 200);
    const corrupt = await post('{"scopes":["read"]}', {
      "content-type": "application/json",
      "content-encoding": "gzip",
    });
    assert.equal(corrupt.status, 400);
    assert.deepEqual(await corrupt.json(), { error: "Invalid request body" });
    const latin1 = await post('{"scopes":["read"]}', {
      "content-type": "application/json; charset=latin1",
    });
    assert.equal(latin1.status, 415);
    assert.deepEqual(await latin1.json(), { error: "Unsupported body encoding" });
  });

  it("a wrong type for a field is 400 Invalid field", async () => {
    const res = await org.api("POST", "/api/enterprise/keys", { body: { scopes: [1, 2] } });
    assert.equal(res.status, 400);
    assert.match(res.body.error, /^Invalid field: scopes\.0 \(/);
  });

  it("accepts the key as X-API-Key or Authorization: Bearer", async () => {
    const viaHeader = await stack.api("GET", "/api/enterprise/wallet", {
      headers: { "x-api-key": org.apiKey },
    });
    assert.equal(viaHeader.status, 200);
    const viaBearer = await stack.api("GET", "/api/enterprise/wallet", {
      headers: { authorization: `Bearer ${org.apiKey}` },
    });
    assert.equal(viaBearer.status, 200);
    const lowercase = await stack.api("GET", "/api/enterprise/wallet", {
      headers: { authorization: `bearer ${org.apiKey}` },
    });
    assert.equal(lowercase.status, 200);
    const both = await stack.api("GET", "/api/enterprise/wallet", {
      headers: { "x-api-key": org.apiKey, authorization: `Bearer ${org.apiKey}` },
    });
    assert.equal(both.status, 200);
  });

  it("an authenticated GET is private, varies on the credential headers, and answers 304 to its ETag", async () => {
    const first = await org.api("GET", "/api/enterprise/keys");
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("cache-control"), "private, no-cache");
    const vary = (first.headers.get("vary") ?? "").toLowerCase();
    for (const header of ["authorization", "x-api-key", "cookie"])
      assert.ok(vary.includes(header), `Vary names ${header}: ${vary}`);
    const etag = first.headers.get("etag") ?? "";
    assert.match(etag, /^W\//);
    const again = await org.api("GET", "/api/enterprise/keys", {
      headers: { "if-none-match": etag },
    });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get("cache-control"), "private, no-cache");
    const noKey = await stack.api("GET", "/api/enterprise/keys", {
      headers: { "if-none-match": etag },
    });
    assert.equal(noKey.status, 401, "the ETag is no substitute for the key");
  });

  const badCredentials: Array<[string, Record<string, string>]> = [
    ["no credentials", {}],
    ["an empty X-API-Key", { "x-api-key": "" }],
    ["a malformed key", { "x-api-key": "rwa_live_123" }],
    ["a well-formed unknown key", { "x-api-key": `rwa_live_${"a".repeat(64)}` }],
    ["a key with the wrong prefix", { "x-api-key": `rwa_test_${"a".repeat(64)}` }],
    ["Basic auth", { authorization: "Basic dXNlcjpwYXNz" }],
    ["Bearer without a key", { authorization: "Bearer " }],
    ["an admin token as API key", { "x-api-key": `ent_admin_${"a".repeat(64)}` }],
    ["a very long header", { "x-api-key": "rwa_live_" + "a".repeat(8000) }],
    ["non-ASCII junk", { "x-api-key": "rwa_live_\u00e9\u00e9" }],
  ];
  for (const [what, headers] of badCredentials) {
    it(`401 Unauthorized with ${what}`, async () => {
      const res = await stack.api("GET", "/api/enterprise/wallet", { headers });
      assertError(res, 401, "Unauthorized");
    });
  }

  it("401 when X-API-Key and Bearer carry different keys", async () => {
    const other = await stack.registerOrg({ plan: "pro" });
    const res = await stack.api("GET", "/api/enterprise/wallet", {
      headers: { "x-api-key": org.apiKey, authorization: `Bearer ${other.apiKey}` },
    });
    assertError(res, 401, "Unauthorized");
  });

  it("auth is checked before the body: a bad key with a bad body is 401", async () => {
    const res = await stack.api("POST", "/api/enterprise/keys", {
      apiKey: `rwa_live_${"b".repeat(64)}`,
      body: { nope: 1 },
    });
    assert.equal(res.status, 401);
  });

  it("GET /metrics exposes Prometheus text with route templates, not raw ids", async () => {
    await org.api("DELETE", "/api/enterprise/keys/key_doesnotexist");
    const res = await stack.api("GET", "/metrics", {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
    assert.match(
      res.text,
      /http_requests_total\{method="GET",route="\/api\/enterprise\/wallet",status="200"\} \d+/,
    );
    assert.match(res.text, /route="\/api\/enterprise\/keys\/:keyId",status="404"/);
    assert.ok(!res.text.includes("key_doesnotexist"));
    assert.match(res.text, /http_request_duration_seconds_bucket/);
    assert.match(res.text, /process_cpu_user_seconds_total/);
    // The engine's and the node client's metrics share the registry (createAppContext).
    assert.match(res.text, /# TYPE rwa_nonce_gap_fills_total counter/);
    assert.match(res.text, /rpc_endpoint_up\{/);
  });

  it("GET /metrics needs the admin token or the METRICS_TOKEN bearer, else 401", async () => {
    const status = async (headers: Record<string, string>) =>
      (await stack.api("GET", "/metrics", { headers })).status;
    assert.equal(await status({}), 401);
    assert.equal(
      await status({ authorization: "Bearer wrong-token-wrong-token-wrong-token" }),
      401,
    );
    assert.equal(await status({ authorization: `Basic ${METRICS_TOKEN}` }), 401);
    assert.equal(await status({ "x-api-key": org.apiKey }), 401, "an org's API key is not enough");
    assert.equal(await status({ "x-admin-token": METRICS_TOKEN }), 401, "not an admin token");
    assert.equal(await status({ authorization: `Bearer ${METRICS_TOKEN}` }), 200);
    assert.equal(await status({ authorization: `Bearer ${stack.adminToken}` }), 200);
    assert.equal(await status({ "x-admin-token": stack.adminToken }), 200);
    const refused = await stack.api("GET", "/metrics");
    assert.deepEqual(refused.body, { error: "Unauthorized" });
    assert.ok(!refused.text.includes("http_requests_total"));
  });

  it("a database outage is 503 Database unavailable, not 500", async () => {
    const pool = stack.ctx.database.pool;
    const originalQuery = pool.query.bind(pool);
    const originalConnect = pool.connect.bind(pool);
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
      code: "ECONNREFUSED",
    });
    // Simulate the server going away without disturbing the shared test server.
    (pool as unknown as { query: unknown }).query = () => Promise.reject(refused);
    (pool as unknown as { connect: unknown }).connect = () => Promise.reject(refused);
    try {
      const res = await org.api("GET", "/api/enterprise/keys");
      assertError(res, 503, "Database unavailable");
      assert.ok(res.headers.get("retry-after"));
    } finally {
      (pool as unknown as { query: unknown }).query = originalQuery;
      (pool as unknown as { connect: unknown }).connect = originalConnect;
    }
    assert.equal((await org.api("GET", "/api/enterprise/keys")).status, 200);
  });

  it("never answers 5xx to any of the malformed requests above (log check)", () => {
    const failed = stack.logs.filter((line) => line.includes('"msg":"unhandled error"'));
    assert.deepEqual(failed, []);
    assert.ok(!stack.logText().includes(org.apiKey));
  });
});
