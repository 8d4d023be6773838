import { expect } from "chai";
import { network } from "hardhat";
import { deploySystem } from "./helpers/deploy.js";
import { cidV1, digestOf } from "./helpers/cid.js";

const { ethers, networkHelpers } = await network.create();

const STAKE = ethers.parseEther("0.1");
const PRICE = ethers.parseEther("1");
const DAY = 24n * 60n * 60n;
const State = { Active: 1n, Sold: 2n, Cancelled: 3n, Expired: 4n };
const RESTRICTED = "Carbon Credit";
const coder = ethers.AbiCoder.defaultAbiCoder();
const terms = (price: bigint, days: number) => coder.encode(["uint256", "uint256"], [price, days]);

/** Alice holds tokens 1 (Art) and 2 (Art); token 2 is listed (listing 1). */
async function complianceFixture() {
  const system = await deploySystem(ethers);
  const { token, alice } = system;
  for (const seed of ["a", "b"])
    await token
      .connect(alice)
      .mint("Art", cidV1(digestOf(seed)), ethers.ZeroHash, { value: STAKE });
  const market = await system.marketplace.getAddress();
  await token.connect(alice).getFunction("safeTransferFrom(address,address,uint256,bytes)")(
    alice.address,
    market,
    2n,
    terms(PRICE, 30),
  );
  return { ...system, market };
}

describe("AssetToken compliance (ERC-7943)", function () {
  describe("introspection", function () {
    it("supportsInterface reports IERC7943NonFungible (0xbf1ef5fe)", async function () {
      const { token } = await networkHelpers.loadFixture(complianceFixture);
      expect(await token.supportsInterface("0xbf1ef5fe")).to.equal(true);
      expect(await token.supportsInterface("0x80ac58cd")).to.equal(true); // ERC-721
    });
  });

  describe("roles", function () {
    it("freeze, pause, setTypeRestricted and setAllowed revert for an account without the role", async function () {
      const { token, bob } = await networkHelpers.loadFixture(complianceFixture);
      const enforcer = await token.ENFORCER_ROLE();
      await expect(token.connect(bob).freeze(1n, "x"))
        .to.be.revertedWithCustomError(token, "AccessControlUnauthorizedAccount")
        .withArgs(bob.address, enforcer);
      await expect(token.connect(bob).pause("x"))
        .to.be.revertedWithCustomError(token, "AccessControlUnauthorizedAccount")
        .withArgs(bob.address, await token.PAUSER_ROLE());
      await expect(token.connect(bob).setTypeRestricted(RESTRICTED, true))
        .to.be.revertedWithCustomError(token, "AccessControlUnauthorizedAccount")
        .withArgs(bob.address, await token.REGISTRAR_ROLE());
      await expect(token.connect(bob).setAllowed(bob.address, true))
        .to.be.revertedWithCustomError(token, "AccessControlUnauthorizedAccount")
        .withArgs(bob.address, enforcer);
    });
  });

  describe("freezing", function () {
    it("freeze emits Frozen and AssetFrozen with the reason and blocks transfer, listing and redeem", async function () {
      const { token, alice, bob, market } = await networkHelpers.loadFixture(complianceFixture);
      await expect(token.freeze(1n, "court order 7"))
        .to.emit(token, "Frozen")
        .withArgs(alice.address, 1n, true)
        .and.to.emit(token, "AssetFrozen")
        .withArgs(1n, alice.address, "court order 7");
      expect(await token.getFrozenTokens(alice.address, 1n)).to.equal(true);
      expect(await token.canTransfer(alice.address, bob.address, 1n)).to.equal(false);
      await expect(token.connect(alice).transferFrom(alice.address, bob.address, 1n))
        .to.be.revertedWithCustomError(token, "ERC7943InsufficientUnfrozenBalance")
        .withArgs(alice.address, 1n);
      await expect(
        token.connect(alice).getFunction("safeTransferFrom(address,address,uint256,bytes)")(
          alice.address,
          market,
          1n,
          terms(PRICE, 30),
        ),
      ).to.be.revertedWithCustomError(token, "ERC7943InsufficientUnfrozenBalance");
      await expect(token.connect(alice).redeem(1n))
        .to.be.revertedWithCustomError(token, "ERC7943InsufficientUnfrozenBalance")
        .withArgs(alice.address, 1n);
      await expect(token.unfreeze(1n, "settled"))
        .to.emit(token, "AssetUnfrozen")
        .withArgs(1n, alice.address, "settled");
      await token.connect(alice).transferFrom(alice.address, bob.address, 1n);
      expect(await token.ownerOf(1n)).to.equal(bob.address);
    });

    it("a frozen escrowed token cannot be bought but goes back to its seller on delist", async function () {
      const { token, marketplace, alice, bob, market } =
        await networkHelpers.loadFixture(complianceFixture);
      await token.freeze(2n, "dispute");
      await expect(
        marketplace.connect(bob).buy(1n, PRICE, { value: PRICE }),
      ).to.be.revertedWithCustomError(token, "ERC7943InsufficientUnfrozenBalance");
      expect(await token.canTransfer(market, bob.address, 2n)).to.equal(false);
      expect(await token.canTransfer(market, alice.address, 2n)).to.equal(true);
      await marketplace.connect(alice).delist(1n);
      expect(await token.ownerOf(2n)).to.equal(alice.address);
      expect(await token.isFrozen(2n)).to.equal(true);
    });

    it("setFrozenTokens reverts for an account that does not hold the token", async function () {
      const { token, alice, bob } = await networkHelpers.loadFixture(complianceFixture);
      await expect(token.setFrozenTokens(bob.address, 1n, true))
        .to.be.revertedWithCustomError(token, "AssetToken__NotHolder")
        .withArgs(bob.address, 1n, alice.address);
      await expect(token.freeze(99n, "x"))
        .to.be.revertedWithCustomError(token, "ERC721NonexistentToken")
        .withArgs(99n);
    });
  });

  describe("forcedTransfer", function () {
    it("moves a frozen token, unfreezing it first, and emits ForcedTransfer with the reason", async function () {
      const { token, alice, carol } = await networkHelpers.loadFixture(complianceFixture);
      await token.freeze(1n, "lost key");
      const tx = token.forcedTransferWithReason(alice.address, carol.address, 1n, "recovery");
      await expect(tx)
        .to.emit(token, "ForcedTransfer")
        .withArgs(alice.address, carol.address, 1n)
        .and.to.emit(token, "AssetForcedTransfer")
        .withArgs(1n, alice.address, carol.address, "recovery")
        .and.to.emit(token, "Frozen")
        .withArgs(alice.address, 1n, false);
      const receipt = await (await tx).wait();
      const names = receipt!.logs.map((log) => token.interface.parseLog(log)?.name);
      expect(names.indexOf("Frozen")).to.be.lessThan(names.indexOf("Transfer"));
      expect(await token.ownerOf(1n)).to.equal(carol.address);
      expect(await token.isFrozen(1n)).to.equal(false);
    });

    it("releases an escrowed token: its listing ends cancelled", async function () {
      const { token, marketplace, alice, carol, market } =
        await networkHelpers.loadFixture(complianceFixture);
      await expect(token.forcedTransferWithReason(market, carol.address, 2n, "court order"))
        .to.emit(marketplace, "ListingCancelled")
        .withArgs(1n, 2n, alice.address);
      expect(await marketplace.stateOf(1n)).to.equal(State.Cancelled);
      expect(await marketplace.activeListingOf(2n)).to.equal(0n);
      expect(await token.ownerOf(2n)).to.equal(carol.address);
    });

    it("works while paused and refuses the zero address, the marketplace, a wrong holder and a disallowed recipient", async function () {
      const { token, registry, alice, bob, carol, market } =
        await networkHelpers.loadFixture(complianceFixture);
      await token.pause("incident");
      await expect(token.forcedTransfer(alice.address, ethers.ZeroAddress, 1n))
        .to.be.revertedWithCustomError(token, "ERC721InvalidReceiver")
        .withArgs(ethers.ZeroAddress);
      await expect(token.forcedTransfer(alice.address, market, 1n))
        .to.be.revertedWithCustomError(token, "AssetToken__InvalidForcedRecipient")
        .withArgs(market);
      await expect(token.forcedTransfer(bob.address, carol.address, 1n))
        .to.be.revertedWithCustomError(token, "ERC721IncorrectOwner")
        .withArgs(bob.address, 1n, alice.address);
      await token.forcedTransfer(alice.address, bob.address, 1n);
      expect(await token.ownerOf(1n)).to.equal(bob.address);

      expect(await registry.isRegistered("Art")).to.equal(true);
      await token.setTypeRestricted("Art", true);
      await expect(token.forcedTransfer(bob.address, carol.address, 1n))
        .to.be.revertedWithCustomError(token, "ERC7943CannotReceive")
        .withArgs(carol.address);
    });

    it("reverts for an account without the enforcer role", async function () {
      const { token, alice, bob } = await networkHelpers.loadFixture(complianceFixture);
      await expect(
        token.connect(bob).forcedTransfer(alice.address, bob.address, 1n),
      ).to.be.revertedWithCustomError(token, "AccessControlUnauthorizedAccount");
    });
  });

  describe("pause", function () {
    it("stops mint, transfer, listing, buying and redeem; delist and reclaim still return the token", async function () {
      const { token, marketplace, alice, bob, market } =
        await networkHelpers.loadFixture(complianceFixture);
      await expect(token.pause("incident 12"))
        .to.emit(token, "Paused")
        .withArgs((await ethers.getSigners())[0]!.address)
        .and.to.emit(token, "MarketPaused");
      const cid = cidV1(digestOf("c"));
      await expect(
        token.connect(alice).mint("Art", cid, ethers.ZeroHash, { value: STAKE }),
      ).to.be.revertedWithCustomError(token, "EnforcedPause");
      await expect(
        token.connect(alice).transferFrom(alice.address, bob.address, 1n),
      ).to.be.revertedWithCustomError(token, "EnforcedPause");
      await expect(
        token.connect(alice).getFunction("safeTransferFrom(address,address,uint256,bytes)")(
          alice.address,
          market,
          1n,
          terms(PRICE, 30),
        ),
      ).to.be.revertedWithCustomError(token, "EnforcedPause");
      await expect(
        marketplace.connect(bob).buy(1n, PRICE, { value: PRICE }),
      ).to.be.revertedWithCustomError(token, "EnforcedPause");
      await expect(token.connect(alice).redeem(1n)).to.be.revertedWithCustomError(
        token,
        "EnforcedPause",
      );
      expect(await token.canTransfer(alice.address, bob.address, 1n)).to.equal(false);

      await networkHelpers.time.increase(31n * DAY);
      await marketplace.connect(alice).reclaim(1n);
      expect(await token.ownerOf(2n)).to.equal(alice.address);

      await expect(token.unpause("resolved"))
        .to.emit(token, "MarketResumed")
        .withArgs((await ethers.getSigners())[0]!.address, "resolved");
      await token.connect(alice).transferFrom(alice.address, bob.address, 1n);
      expect(await token.ownerOf(1n)).to.equal(bob.address);
    });
  });

  describe("restricted types", function () {
    it("a restricted type only goes to allowlisted addresses; escrow holds it for its seller", async function () {
      const { token, marketplace, alice, bob, carol, market } =
        await networkHelpers.loadFixture(complianceFixture);
      await expect(token.setTypeRestricted(RESTRICTED, true)).to.emit(
        token,
        "AssetTypeRestrictionSet",
      );
      expect(await token.isTypeRestricted(RESTRICTED)).to.equal(true);
      const cid = cidV1(digestOf("cc"));
      await expect(token.connect(alice).mint(RESTRICTED, cid, ethers.ZeroHash, { value: STAKE }))
        .to.be.revertedWithCustomError(token, "ERC7943CannotReceive")
        .withArgs(alice.address);
      await expect(token.setAllowed(alice.address, true))
        .to.emit(token, "AllowlistUpdated")
        .withArgs(alice.address, true);
      expect(await token.canReceive(alice.address)).to.equal(true);
      await token.connect(alice).mint(RESTRICTED, cid, ethers.ZeroHash, { value: STAKE });
      expect(await token.canTransfer(alice.address, bob.address, 3n)).to.equal(false);
      await expect(token.connect(alice).transferFrom(alice.address, bob.address, 3n))
        .to.be.revertedWithCustomError(token, "ERC7943CannotReceive")
        .withArgs(bob.address);
      // Listing (escrow) is fine; a buyer must be allowlisted.
      await token.connect(alice).getFunction("safeTransferFrom(address,address,uint256,bytes)")(
        alice.address,
        market,
        3n,
        terms(PRICE, 30),
      );
      await expect(
        marketplace.connect(bob).buy(2n, PRICE, { value: PRICE }),
      ).to.be.revertedWithCustomError(token, "ERC7943CannotReceive");
      await token.setAllowed(bob.address, true);
      await marketplace.connect(bob).buy(2n, PRICE, { value: PRICE });
      expect(await token.ownerOf(3n)).to.equal(bob.address);
      // Unrestricted types still go anywhere.
      expect(await token.canTransfer(alice.address, carol.address, 1n)).to.equal(true);
      await token.setTypeRestricted(RESTRICTED, false);
      expect(await token.canTransfer(bob.address, carol.address, 3n)).to.equal(true);
    });

    it("setTypeRestricted reverts for an unregistered type", async function () {
      const { token } = await networkHelpers.loadFixture(complianceFixture);
      await expect(token.setTypeRestricted("Nope", true))
        .to.be.revertedWithCustomError(token, "AssetToken__UnknownAssetType")
        .withArgs("Nope");
    });
  });

  describe("setMarketplace", function () {
    it("can be set once only", async function () {
      const { token, market } = await networkHelpers.loadFixture(complianceFixture);
      expect(await token.marketplace()).to.equal(market);
      await expect(token.setMarketplace(market))
        .to.be.revertedWithCustomError(token, "AssetToken__MarketplaceAlreadySet")
        .withArgs(market);
    });
  });

  describe("Marketplace.releaseForForcedTransfer", function () {
    it("reverts for anyone but the token", async function () {
      const { marketplace, alice } = await networkHelpers.loadFixture(complianceFixture);
      await expect(marketplace.connect(alice).releaseForForcedTransfer(2n))
        .to.be.revertedWithCustomError(marketplace, "Marketplace__OnlyToken")
        .withArgs(alice.address);
    });
  });
});
