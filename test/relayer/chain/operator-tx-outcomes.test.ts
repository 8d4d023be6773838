import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import type { ChainProbe } from "../../support/chain-probe.js";
import { gatewayError, type RpcFaultProxy } from "../../support/rpc-fault-proxy.js";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, type WriteStack } from "../writes/helpers.js";
import { startProxiedWriteStack, type ProxiedWriteStack } from "./proxied-stack.js";

/**
 * An operator act sent on chain (a freeze, from the operator account) whose answer may have gone
 * through always names its transaction: the node receives the broadcast, then every receipt
 * look-up fails, and the 503 carries `txHash` (body and `X-Transaction-Hash`) of a transaction
 * that is on chain. Real anvil behind a fault proxy, real PostgreSQL.
 */
describe("operator transactions whose outcome the relayer cannot see (fault proxy)", () => {
  let proxied: ProxiedWriteStack, stack: WriteStack, proxy: RpcFaultProxy, chain: ChainProbe;
  let alice: TestOrg;
  before(async () => {
    proxied = await startProxiedWriteStack([{}]);
    ({ stack, chain } = proxied);
    proxy = proxied.proxies[0]!;
    alice = await stack.registerOrg();
  });
  after(() => proxied?.stop());
  afterEach(() => proxy.clearRules());

  const operator = (method: string, path: string, body?: unknown) =>
    stack.api(method, path, {
      adminToken: stack.adminToken,
      ...(body === undefined ? {} : { body }),
    });
  const issue = async () => {
    const res = await alice.api("POST", "/api/v1/write/issue-asset", { body: assetBody() });
    assert.equal(res.status, 200, res.text);
    return String((res.body as { tokenId: string }).tokenId);
  };

  it("freeze answers 503 RPC unavailable with the txHash when every receipt look-up fails after the broadcast, and the freeze is on chain", async () => {
    const tokenId = await issue();
    proxy.resetCounts();
    const lookups = proxy.addRule({
      method: "eth_getTransactionReceipt",
      action: gatewayError(503),
    });
    const res = await operator("POST", `/api/enterprise/assets/${tokenId}/freeze`, {
      reason: "receipt lost",
    });
    assert.equal(proxy.forwarded("eth_sendRawTransaction"), 1, "the freeze was broadcast");
    assert.ok(lookups.hits >= 1, "the receipt look-up failed");
    assert.equal(res.status, 503, res.text);
    const body = res.body as { error: string; txHash: string };
    assert.equal(body.error, "RPC unavailable");
    assert.match(body.txHash, /^0x[0-9a-f]{64}$/);
    assert.equal(res.headers.get("x-transaction-hash"), body.txHash);
    const receipt = await chain.receipt(body.txHash);
    assert.equal(receipt?.status, "0x1", "the named transaction is mined");
    assert.equal(await chain.token.isFrozen(tokenId), true, "the freeze is on chain");
  });
});
