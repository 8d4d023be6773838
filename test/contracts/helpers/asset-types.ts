import { DEFAULT_ASSET_TYPES as DEPLOYED_ASSET_TYPES } from "../../../deploy/asset-types.js";

/**
 * The 29 default asset types, in registration order: the deploy script's list
 * (deploy/asset-types.ts), as the mutable array TypeChain's `registerTypes(string[])` takes.
 * test/deploy/deploy.test.ts checks that list against contracts/libraries/DefaultAssetTypes.sol.
 */
export const DEFAULT_ASSET_TYPES: string[] = [...DEPLOYED_ASSET_TYPES];
