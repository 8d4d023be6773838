import assert from "node:assert/strict";
import { JsonRpcProvider, parseEther, toBeHex } from "ethers";
import type { AssetToken } from "../../../typechain-types/AssetToken.js";
import { AssetToken__factory } from "../../../typechain-types/factories/AssetToken__factory.js";
import type { EngineOptions } from "../../../relayer/src/engine/engine.js";
import { startIndexer, type IndexerHandle } from "../../../relayer/src/indexer/start-indexer.js";
import { eventually } from "../../support/eventually.js";
import { startRpcFaultProxy, type RpcFaultProxy } from "../../support/rpc-fault-proxy.js";
import {
  startTestStack,
  type TestOrg,
  type TestStack,
  type TestStackOptions,
} from "../../support/stack.js";

/** A test stack with the engine running. */
export interface WriteStack extends TestStack {
  provider: JsonRpcProvider;
  /** The AssetToken contract, read through `provider`. */
  token: AssetToken;
  /** The indexer `startWriteStack` started; `stop()` stops it (again: harmless) before the stack. */
  indexer: IndexerHandle;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Switches anvil's automine off (a write stays in the pool) or back on. */
  automine(on: boolean): Promise<unknown>;
  /** Runs `body` with automine off, and switches it back on afterwards whatever happens. */
  withoutAutomine<T>(body: () => Promise<T>): Promise<T>;
  /**
   * Sets an address's balance (`anvil_setBalance`), mines a block and waits until the relayer
   * has seen it; resolves to that block. The relayer reads a balance once per block it sees
   * (`HeadReads`), so a dev chain's balance change counts from its next block.
   */
  setBalance(address: string, coin: string): Promise<number>;
}

/**
 * Starts the shared harness plus `ctx.engine.start()` and the indexer (both stopped before the
 * stack), as `npm start` runs them: a synchronous write answers once the indexer has applied its
 * block. `tx` overrides the runtime's tuning (default: 200 ms nonce checks).
 */
export async function startWriteStack(
  options: TestStackOptions = {},
  tx: EngineOptions = {},
): Promise<WriteStack> {
  const stack = await startTestStack({
    logLevel: "warn",
    ...options,
    engine: { ...tx, sequencer: { checkIntervalMs: 200, ...tx.sequencer } },
  });
  await stack.ctx.engine.start();
  const indexer = await startIndexer(stack.ctx, { lockPollMs: 200 });
  const provider = new JsonRpcProvider(stack.rpcUrl, 1236, { staticNetwork: true });
  const stop = stack.stop.bind(stack);
  const automine = (on: boolean) => provider.send("evm_setAutomine", [on]);
  return Object.assign(stack, {
    provider,
    token: AssetToken__factory.connect(stack.ctx.contracts.assetToken, provider),
    indexer,
    rpc: <T>(method: string, params: unknown[] = []) => provider.send(method, params) as Promise<T>,
    automine,
    withoutAutomine: async <T>(body: () => Promise<T>) => {
      await automine(false);
      try {
        return await body();
      } finally {
        await automine(true);
      }
    },
    setBalance: async (address: string, coin: string) => {
      await provider.send("anvil_setBalance", [address, toBeHex(parseEther(coin))]);
      const before = stack.ctx.engine.blocks.head;
      await provider.send("evm_mine", []);
      await eventually(
        () =>
          Promise.resolve(assert.ok(stack.ctx.engine.blocks.head > before, "the block is seen")),
        10_000,
        20,
      );
      return stack.ctx.engine.blocks.head;
    },
    stop: async () => {
      const t0 = Date.now();
      await stack.ctx.engine.stop();
      await indexer.stop();
      const t1 = Date.now();
      provider.destroy();
      await stop();
      if (process.env.STACK_TIMING === "1")
        console.error(`engine.stop ${t1 - t0} ms, stack.stop ${Date.now() - t1} ms`);
    },
  });
}

/** A write stack whose relayer reaches anvil through `proxy` (`startWriteStackBehindProxy`). */
export type ProxiedWriteStack = WriteStack & { proxy: RpcFaultProxy };

/**
 * `startWriteStack` with the relayer reaching anvil through the fault proxy
 * (`test/support/rpc-fault-proxy.ts`), which forwards everything until a test adds a rule;
 * `stop()` closes the proxy after the stack.
 */
export async function startWriteStackBehindProxy(
  options: TestStackOptions = {},
  tx: EngineOptions = {},
): Promise<ProxiedWriteStack> {
  let proxy: RpcFaultProxy | undefined;
  const stack = await startWriteStack(
    {
      ...options,
      relayerRpcUrl: async (nodeUrl) => {
        proxy = await startRpcFaultProxy({ target: nodeUrl });
        return proxy.url;
      },
    },
    tx,
  );
  if (proxy === undefined) throw new Error("the stack did not ask for the relayer's RPC URL");
  const started = proxy;
  const stop = stack.stop.bind(stack);
  return Object.assign(stack, {
    proxy: started,
    stop: async () => {
      await stop();
      await started.close();
    },
  });
}

/** `N` organizations, as a tuple so that they destructure without `undefined`. */
type Orgs<N extends number, T extends TestOrg[] = []> = T["length"] extends N
  ? T
  : Orgs<N, [...T, TestOrg]>;

/**
 * `startWriteStack` plus `count` organizations registered on it at once: `[stack, ...orgs]`.
 *
 * @example
 * let stack: WriteStack, alice: TestOrg, bob: TestOrg;
 * before(async () => ([stack, alice, bob] = await startWriteStackWithOrgs(2)));
 * after(() => stack?.stop());
 */
export async function startWriteStackWithOrgs<N extends number>(
  count: N,
  options: TestStackOptions = {},
  tx: EngineOptions = {},
): Promise<[WriteStack, ...Orgs<N>]> {
  const stack = await startWriteStack(options, tx);
  const orgs = await Promise.all(Array.from({ length: count }, () => stack.registerOrg()));
  return [stack, ...(orgs as Orgs<N>)];
}

/** A valid issue-asset body. */
export function assetBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { assetType: "Bond", name: "Test Bond", description: "A bond for tests", ...overrides };
}

/** Polls `GET /api/v1/transactions/{id}` until `done` holds for its body (fails after `ms`). */
export async function waitForStatus(
  org: TestOrg,
  id: string,
  done: (body: Record<string, unknown>) => boolean,
  ms = 15_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const body = (await org.api("GET", `/api/v1/transactions/${id}`)).body as Record<
      string,
      unknown
    >;
    if (done(body)) return body;
    if (Date.now() > deadline)
      assert.fail(`transaction ${id} did not reach the expected state: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
