import type { HardhatEthers, HardhatEthersSigner } from "@nomicfoundation/hardhat-ethers/types";
import { DEFAULT_ASSET_TYPES } from "./asset-types.js";

/**
 * Deploys registry (with the 29 default types), token and marketplace, as the deploy script does.
 * The first signer is the admin; the others are users.
 */
export async function deploySystem(ethers: HardhatEthers) {
  const [admin, alice, bob, carol, ...others] = await namedSigners(ethers, 5);
  const registry = await ethers.deployContract("AssetTypeRegistry", [admin.address]);
  await (await registry.registerTypes(DEFAULT_ASSET_TYPES)).wait();
  const token = await ethers.deployContract("AssetToken", [
    await registry.getAddress(),
    admin.address,
  ]);
  const marketplace = await ethers.deployContract("Marketplace", [
    await token.getAddress(),
    admin.address,
  ]);
  await (await token.setMarketplace(await marketplace.getAddress())).wait();
  return { registry, token, marketplace, admin, alice, bob, carol, others };
}

/**
 * The node's signers, checked to be at least `count` long so they can be destructured without
 * `undefined` (the default Hardhat network has 20).
 */
export async function namedSigners(
  ethers: HardhatEthers,
  count: number,
): Promise<
  [
    HardhatEthersSigner,
    HardhatEthersSigner,
    HardhatEthersSigner,
    HardhatEthersSigner,
    ...HardhatEthersSigner[],
  ]
> {
  const signers = await ethers.getSigners();
  if (signers.length < Math.max(count, 4))
    throw new Error(`need ${count} signers, have ${signers.length}`);
  const [a, b, c, d, ...rest] = signers;
  return [a!, b!, c!, d!, ...rest];
}
