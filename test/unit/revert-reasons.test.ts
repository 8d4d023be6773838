import assert from "node:assert/strict";
import { id } from "ethers";
import { describe, it } from "node:test";
import {
  assetTokenInterface,
  contractsInterface,
  marketplaceInterface,
} from "../../relayer/src/chain/contracts/bindings.js";
import { REVERT_REASONS, revertReason } from "../../relayer/src/chain/contracts/revert-reasons.js";
import { COMPLIANCE_REASONS } from "../../relayer/src/writes/chain-checks.js";

const PAUSED = "Transfers are paused";
const FROZEN = "Asset is frozen";
const RECIPIENT = "Recipient is not allowed to hold this asset type";

describe("revert reasons", () => {
  it("names only errors the compiled contracts declare (a renamed Solidity error fails here)", () => {
    const declared = new Set<string>();
    contractsInterface.forEachError((error) => declared.add(error.name));
    for (const name of Object.keys(REVERT_REASONS)) assert.ok(declared.has(name), name);
  });
  it("maps the contracts' custom errors to the API's strings (docs/contracts.md)", () => {
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
  it("decodes a compliance revert that slipped past a pre-check to the pre-check's words", () => {
    const wallet = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    assert.equal(revertReason(assetTokenInterface.encodeErrorResult("EnforcedPause")), PAUSED);
    assert.equal(
      revertReason(
        assetTokenInterface.encodeErrorResult("ERC7943InsufficientUnfrozenBalance", [wallet, 3n]),
      ),
      FROZEN,
    );
    assert.equal(
      revertReason(assetTokenInterface.encodeErrorResult("ERC7943CannotReceive", [wallet])),
      RECIPIENT,
    );
    assert.deepEqual(
      [PAUSED, FROZEN, RECIPIENT],
      [COMPLIANCE_REASONS.paused, COMPLIANCE_REASONS.frozen, COMPLIANCE_REASONS.recipient],
    );
  });
  it("names the missing role of an operator action", () => {
    const missing = (role: string) =>
      revertReason(
        assetTokenInterface.encodeErrorResult("AccessControlUnauthorizedAccount", [
          "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
          id(role),
        ]),
      );
    assert.equal(missing("ENFORCER_ROLE"), "Missing enforcer role");
    assert.equal(missing("PAUSER_ROLE"), "Missing pauser role");
    assert.equal(missing("REGISTRAR_ROLE"), "Missing registrar role");
  });
  it("passes Error(string) reasons through and names unknown selectors", () => {
    const data =
      "0x08c379a0" + marketplaceInterface.getAbiCoder().encode(["string"], ["nope"]).slice(2);
    assert.equal(revertReason(data), "nope");
    assert.equal(revertReason("0xdeadbeef"), "execution reverted (0xdeadbeef)");
    assert.equal(revertReason("0x"), "execution reverted");
  });
});
