import { JsonRpcProvider, NonceManager, Wallet } from "ethers";
import type { AssetToken } from "../../../typechain-types/AssetToken.js";
import { AssetToken__factory } from "../../../typechain-types/factories/AssetToken__factory.js";
import { Marketplace__factory } from "../../../typechain-types/factories/Marketplace__factory.js";
import type { Marketplace } from "../../../typechain-types/Marketplace.js";
import type { TestStack } from "../../support/stack.js";

/** Anvil's default dev accounts #1..#3 (not ours: no org owns them). */
export const FOREIGN_KEYS = [
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdd4ab0a",
  "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
] as const;

/** The custodial wallet of an org as an ethers signer (the test opens the keystore envelope). */
export async function orgSigner(
  stack: TestStack,
  orgId: string,
  provider: JsonRpcProvider,
): Promise<Wallet> {
  const { rows } = await stack.database.pool.query<{ id: string; encrypted_key: string }>(
    "SELECT id, encrypted_key FROM wallets WHERE org_id = $1",
    [orgId],
  );
  const row = rows[0];
  if (row === undefined) throw new Error("no wallet");
  return new Wallet(stack.ctx.keyStore.open(row.encrypted_key, row.id), provider);
}

/** A provider for direct calls (automine chain: receipts at once). */
export function testProvider(rpcUrl: string): JsonRpcProvider {
  const provider = new JsonRpcProvider(rpcUrl, 1236, { staticNetwork: true, cacheTimeout: -1 });
  provider.pollingInterval = 50;
  return provider;
}

/** The asset token contract (TypeChain-typed) connected to `signer`. */
export function tokenAs(stack: TestStack, signer: Wallet | NonceManager): AssetToken {
  return AssetToken__factory.connect(stack.ctx.contracts.assetToken, signer);
}

/** The marketplace contract (TypeChain-typed) connected to `signer`. */
export function marketAs(stack: TestStack, signer: Wallet | NonceManager): Marketplace {
  return Marketplace__factory.connect(stack.ctx.contracts.marketplace, signer);
}

/** Mints directly on-chain (type "Bond", a fixed CIDv1, stake 0.1) and returns the receipt's block. */
export async function mintDirect(
  stack: TestStack,
  signer: Wallet,
  digestByte = 1,
): Promise<{ blockNumber: number; txHash: string }> {
  const token = tokenAs(stack, signer);
  const digest = `0x${digestByte.toString(16).padStart(2, "0").repeat(32)}`;
  const tx = await token.getFunction("mint")(
    "Bond",
    { digest, version: 1, codec: 0x0200, hashCode: 0x12 },
    `0x${"00".repeat(32)}`,
    {
      value: 10n ** 17n,
    },
  );
  const receipt = await tx.wait();
  return { blockNumber: receipt!.blockNumber, txHash: receipt!.hash };
}
