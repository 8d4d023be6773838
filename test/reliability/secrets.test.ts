import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { ANVIL_DEV_PRIVATE_KEY } from "../../deploy/rpc.js";
import { AesGcmKeyStore } from "../../relayer/src/wallets/key-store.js";
import { startReceiver, type Receiver } from "../relayer/webhooks/receiver.js";
import {
  startCluster,
  waitUntil,
  type Cluster,
  type ClusterOrg,
  type ClusterRelayer,
  type HttpResult,
} from "./support/cluster.js";

/**
 * A full flow on a real relayer process with debug logging (register, keys, webhooks with
 * secrets, issue with a password, list and buy, deliveries), then a search of everything it
 * printed and every API answer (except the one creation answer that shows each secret once) and
 * every webhook delivery for any secret: custodial private keys (decrypted from the database
 * here), the operator key, the master key, API keys, the admin token, webhook secrets and the
 * plaintext password. A wrong MASTER_KEY refusing to start is covered by
 * test/relayer/start/start-restart.test.ts ("a different MASTER_KEY on a later start...").
 */
describe("secrets never leave their one creation response", { timeout: 120_000 }, () => {
  let cluster: Cluster;
  let relayer: ClusterRelayer;
  let receiver: Receiver;
  let seller: ClusterOrg;
  let buyer: ClusterOrg;
  const answers: HttpResult[] = [];
  const secrets = new Map<string, string>();
  const password = `pw-${randomBytes(8).toString("hex")}`;
  const webhookSecret = `whsec_${randomBytes(24).toString("base64")}`;

  /** A call whose answer must not contain any secret. */
  async function api(
    method: string,
    urlPath: string,
    org: ClusterOrg | undefined,
    body?: unknown,
  ): Promise<HttpResult> {
    const res = await relayer.call(method, urlPath, {
      ...(org === undefined ? {} : { apiKey: org.apiKey }),
      ...(body === undefined ? {} : { body }),
      timeoutMs: 60_000,
    });
    answers.push(res);
    return res;
  }

  before(async () => {
    cluster = await startCluster({ blockTime: 0, env: { LOG_LEVEL: "debug" } });
    relayer = await cluster.spawn();
    receiver = await startReceiver();
    secrets.set("admin token", cluster.adminToken);
    secrets.set("master key", cluster.masterKey);
    secrets.set("operator key", ANVIL_DEV_PRIVATE_KEY.slice(2));
    secrets.set("webhook secret", webhookSecret);
    secrets.set("password", password);

    seller = await cluster.registerOrg(relayer);
    buyer = await cluster.registerOrg(relayer);
    secrets.set("seller key", seller.apiKey);
    secrets.set("buyer key", buyer.apiKey);
    const extra = await relayer.call("POST", "/api/enterprise/keys", {
      apiKey: seller.apiKey,
      body: { scopes: ["read"], label: "extra" },
    });
    assert.equal(extra.status, 200, extra.text);
    secrets.set("extra key", String(extra.body.apiKey));
    for (const [org, secret] of [
      [seller, webhookSecret],
      [buyer, undefined],
    ] as const) {
      const hook = await cluster.subscribeWebhook(relayer, org, {
        url: receiver.url(`/${org.orgId}`),
        events: ["asset.issued", "asset.listed", "asset.sold"],
        ...(secret === undefined ? {} : { secret }),
      });
      if (secret === undefined) secrets.set("generated webhook secret", String(hook.body.secret));
    }
  });

  after(async () => {
    await receiver?.close();
    await cluster?.stop();
  });

  test("a full flow (issue with a password, list, buy, deliveries) succeeds", async () => {
    const issued = await api("POST", "/api/v1/write/issue-asset", seller, {
      assetType: "Bond",
      name: "Secret bond",
      description: "carries a password",
      password,
    });
    assert.equal(issued.status, 200, issued.text);
    const listed = await api("POST", "/api/v1/write/marketplace/list", seller, {
      tokenId: issued.body.tokenId,
      priceInCOIN: "0.5",
    });
    assert.equal(listed.status, 200, listed.text);
    const bought = await api("POST", "/api/v1/write/marketplace/buy", buyer, {
      listingId: listed.body.listingId,
    });
    assert.equal(bought.status, 200, bought.text);
    await waitUntil(
      "the sale's deliveries",
      () =>
        receiver.accepted(`/${seller.orgId}`).some((d) => d.json.event === "asset.sold") &&
        receiver.accepted(`/${buyer.orgId}`).some((d) => d.json.event === "asset.sold")
          ? true
          : undefined,
      30_000,
    );
    for (const org of [seller, buyer]) {
      await api("GET", "/api/enterprise/wallet", org);
      await api("GET", "/api/enterprise/keys", org);
      const hooks = await api("GET", "/api/enterprise/webhooks", org);
      for (const hook of hooks.body.webhooks as Array<{ webhookId: string }>) {
        await api("GET", `/api/enterprise/webhooks/${hook.webhookId}/deliveries`, org);
      }
      const audit = await api("GET", "/api/enterprise/audit-log?limit=100", org);
      assert.ok(audit.body.data.length >= 2, audit.text); // registration, webhook (and a key)
    }
    const everyOrg = await relayer.call("GET", "/api/enterprise/audit-log?limit=100", {
      headers: { "x-admin-token": cluster.adminToken },
    });
    assert.equal(everyOrg.status, 200, everyOrg.text);
    answers.push(everyOrg);
    await api("GET", `/api/v1/assets/${String(issued.body.tokenId)}`, undefined);
    await api("GET", `/api/v1/nft/${String(issued.body.tokenId)}`, undefined);
    await api("GET", "/api/v1/marketplace", undefined);
    await api("GET", "/api/v1/status", undefined);
    // Rejections log at debug level: make some, with secrets in the request.
    await api("POST", "/api/v1/write/issue-asset", seller, { password, bogus: true });
    await relayer.call("GET", "/api/enterprise/wallet", {
      headers: { authorization: `Bearer ${seller.apiKey}x` },
    });
  });

  test("custodial keys are stored as ciphertext only", async () => {
    const { rows } = await cluster.pool.query<{
      id: string;
      org_id: string;
      encrypted_key: string;
    }>("SELECT id, org_id, encrypted_key FROM wallets");
    assert.ok(rows.length >= 2);
    const store = new AesGcmKeyStore(cluster.masterKey);
    for (const row of rows) {
      assert.doesNotMatch(row.encrypted_key, /0x[0-9a-fA-F]{64}/);
      let key: string | undefined;
      for (const context of [row.id, row.org_id]) {
        try {
          key = store.open(row.encrypted_key, context);
          break;
        } catch {
          // another context
        }
      }
      assert.ok(key !== undefined, `wallet ${row.id} opens with the master key`);
      assert.match(key, /^(0x)?[0-9a-fA-F]{64}$/);
      secrets.set(`custodial key ${row.id}`, key.replace(/^0x/, ""));
      assert.ok(!row.encrypted_key.includes(key.replace(/^0x/, "")));
    }
    const dump = await cluster.pool.query("SELECT * FROM wallets");
    assert.doesNotMatch(JSON.stringify(dump.rows), /0x[0-9a-fA-F]{64}"/);
  });

  test("no secret appears in the relayer's output, in API answers, in deliveries or in the audit log", async () => {
    const audit = await cluster.pool.query<{ row: string }>(
      "SELECT row_to_json(a)::text AS row FROM audit_log a",
    );
    assert.ok(audit.rows.length >= 5, "registrations, a key and webhooks are audited");
    const haystacks: Array<[string, string]> = [
      ["audit log", audit.rows.map((r) => r.row).join("\n")],
      ["relayer output", relayer.output()],
      ...answers.map((a, i): [string, string] => [`answer ${i} (${a.status})`, a.text]),
      ...receiver.received.map((d, i): [string, string] => [
        `delivery ${i}`,
        `${JSON.stringify(d.headers)}\n${d.body}`,
      ]),
    ];
    assert.ok(relayer.output().length > 1_000, "debug logs were captured");
    const found: string[] = [];
    for (const [name, secret] of secrets) {
      for (const [where, text] of haystacks) {
        if (text.toLowerCase().includes(secret.toLowerCase())) found.push(`${name} in ${where}`);
      }
    }
    assert.deepEqual(found, []);
  });
});
