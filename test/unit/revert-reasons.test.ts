import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  assetTokenInterface,
  contractsInterface,
  marketplaceInterface,
} from "../../relayer/src/chain/contracts.js";
import { REVERT_REASONS, revertReason } from "../../relayer/src/chain/revert-reasons.js";

describe("revert reasons", () => {
  it("names only errors the compiled contracts declare (a renamed Solidity error fails here)", () => {
    const declared = new Set<string>();
    contractsInterface.forEachError((error) => declared.add(error.name));
    for (const name of Object.keys(REVERT_REASONS)) assert.ok(declared.has(name), name);
  });
  it("maps the contracts' custom errors to the README's strings", () => {
    assert.equal(
      revertReason(
        assetTokenInterface.encodeErrorResult("AssetToken__BelowMinStake", [1n, 10n ** 17n]),
      ),
      "Below min stake",
    );
    assert.equal(
      revertReason(marketplaceInterface.encodeErrorResult("Marketplace__ListingNotActive", [3n])),
      "Listing not active",
    );
    assert.equal(
      revertReason(marketplaceInterface.encodeErrorResult("Marketplace__PriceAboveMax", [2n, 1n])),
      "Price above max",
    );
  });
  it("passes Error(string) reasons through and names unknown selectors", () => {
    const data =
      "0x08c379a0" + marketplaceInterface.getAbiCoder().encode(["string"], ["nope"]).slice(2);
    assert.equal(revertReason(data), "nope");
    assert.equal(revertReason("0xdeadbeef"), "execution reverted (0xdeadbeef)");
    assert.equal(revertReason("0x"), "execution reverted");
  });
});
