import { expect } from "chai";
import { network } from "hardhat";
import { deploySystem } from "./helpers/deploy.js";
import { cidV1, digestOf } from "./helpers/cid.js";

const { ethers, networkHelpers } = await network.create();

const STAKE = ethers.parseEther("0.1");
const PRICE = ethers.parseEther("1");
const DAY = 24n * 60n * 60n;
const State = { None: 0n, Active: 1n, Sold: 2n, Cancelled: 3n, Expired: 4n };
const coder = ethers.AbiCoder.defaultAbiCoder();
const terms = (price: bigint, days: bigint | number) =>
  coder.encode(["uint256", "uint256"], [price, days]);

async function marketFixture() {
  const system = await deploySystem(ethers);
  const { token, alice } = system;
  for (let i = 0; i < 3; i++) {
    await token
      .connect(alice)
      .mint("Art", cidV1(digestOf(`art ${i}`)), ethers.ZeroHash, { value: STAKE });
  }
  const market = await system.marketplace.getAddress();
  return { ...system, market };
}

type System = Awaited<ReturnType<typeof deploySystem>>;
type Signer = System["alice"];

/**
 * Lists `tokenId` of `from` by `safeTransferFrom(from, market, tokenId, data)`, sent by `by`
 * (the owner itself unless an approved operator is named); `data` is normally `terms(...)`.
 */
function safeList(
  { token, market }: Pick<System, "token"> & { market: string },
  from: Signer,
  tokenId: bigint,
  data: string,
  by: Signer = from,
) {
  return token.connect(by).getFunction("safeTransferFrom(address,address,uint256,bytes)")(
    from.address,
    market,
    tokenId,
    data,
  );
}

/** Alice lists token 1 at PRICE for 30 days via safeTransferFrom: listing 1. */
async function listedFixture() {
  const system = await marketFixture();
  const { token, alice, market } = system;
  await safeList({ token, market }, alice, 1n, terms(PRICE, 30));
  return system;
}

/** Listing ids in every state but Active: a listing that never existed among them. */
const Closed = { sold: 1n, cancelled: 2n, expired: 3n, unknown: 9n };

/**
 * Listing 1 sold to Bob, listing 2 (token 2) delisted, listing 3 (token 3, one day) expired and
 * not reclaimed: the ids of `Closed`.
 */
async function closedListingsFixture() {
  const system = await listedFixture();
  const { token, marketplace, alice, bob, market } = system;
  await marketplace.connect(bob).buy(Closed.sold, PRICE, { value: PRICE });
  await safeList({ token, market }, alice, 2n, terms(PRICE, 1));
  await marketplace.connect(alice).delist(Closed.cancelled);
  await safeList({ token, market }, alice, 3n, terms(PRICE, 1));
  await networkHelpers.time.increase(DAY);
  return system;
}

/** Expects `send(id)` to revert with `Marketplace__ListingNotActive(id)` for every id of `Closed`. */
async function expectListingNotActive(
  marketplace: System["marketplace"],
  send: (id: bigint) => Promise<unknown>,
) {
  for (const id of Object.values(Closed)) {
    await expect(send(id))
      .to.be.revertedWithCustomError(marketplace, "Marketplace__ListingNotActive")
      .withArgs(id);
  }
}

describe("Marketplace", function () {
  describe("deployment", function () {
    it("deployment sets the token, the constants and the first listing id", async function () {
      const { marketplace, token } = await networkHelpers.loadFixture(marketFixture);
      expect(await marketplace.token()).to.equal(await token.getAddress());
      expect(await marketplace.DEFAULT_DURATION_DAYS()).to.equal(30n);
      expect(await marketplace.MAX_DURATION_DAYS()).to.equal(365n);
      expect(await marketplace.nextListingId()).to.equal(1n);
      expect(await marketplace.totalProceeds()).to.equal(0n);
    });

    it("deployment reverts with UnsupportedToken for the zero address", async function () {
      const { marketplace, admin } = await networkHelpers.loadFixture(marketFixture);
      const factory = await ethers.getContractFactory("Marketplace");
      await expect(factory.deploy(ethers.ZeroAddress, admin.address))
        .to.be.revertedWithCustomError(marketplace, "Marketplace__UnsupportedToken")
        .withArgs(ethers.ZeroAddress);
    });

    it("deployment reverts with ZeroAdmin for a zero admin", async function () {
      const { marketplace, token } = await networkHelpers.loadFixture(marketFixture);
      const factory = await ethers.getContractFactory("Marketplace");
      await expect(
        factory.deploy(await token.getAddress(), ethers.ZeroAddress),
      ).to.be.revertedWithCustomError(marketplace, "Marketplace__ZeroAdmin");
    });

    it("deployment gives the admin DEFAULT_ADMIN_ROLE and OPERATOR_ROLE, and nobody else", async function () {
      const { marketplace, admin, alice } = await networkHelpers.loadFixture(marketFixture);
      const operatorRole = await marketplace.OPERATOR_ROLE();
      expect(operatorRole).to.equal(ethers.id("OPERATOR_ROLE"));
      expect(await marketplace.hasRole(operatorRole, admin.address)).to.equal(true);
      expect(await marketplace.hasRole(ethers.ZeroHash, admin.address)).to.equal(true);
      expect(await marketplace.hasRole(operatorRole, alice.address)).to.equal(false);
    });

    it("the marketplace has no receive function: a plain coin transfer reverts", async function () {
      const { alice, market } = await networkHelpers.loadFixture(marketFixture);
      await expect(alice.sendTransaction({ to: market, value: 1n })).to.be.revert(ethers);
    });
  });

  describe("listing with safeTransferFrom", function () {
    it("safeTransferFrom with abi.encode(price, days) escrows the token and creates an active listing", async function () {
      const { token, marketplace, alice, market } = await networkHelpers.loadFixture(marketFixture);
      const tx = safeList({ token, market }, alice, 1n, terms(PRICE, 30));
      const now = BigInt(await networkHelpers.time.latest()) + 1n;
      await expect(tx)
        .to.emit(marketplace, "ListingCreated")
        .withArgs(1n, 1n, alice.address, PRICE, now + 30n * DAY);
      expect(await token.ownerOf(1n)).to.equal(market);
      const listing = await marketplace.getListing(1n);
      expect(listing.seller).to.equal(alice.address);
      expect(listing.listedAt).to.equal(now);
      expect(listing.expiresAt).to.equal(now + 30n * DAY);
      expect(listing.state).to.equal(State.Active);
      expect(listing.buyer).to.equal(ethers.ZeroAddress);
      expect(listing.tokenId).to.equal(1n);
      expect(listing.price).to.equal(PRICE);
      expect(await marketplace.stateOf(1n)).to.equal(State.Active);
      expect(await marketplace.nextListingId()).to.equal(2n);
    });

    it("safeTransferFrom by an approved operator lists with the owner (from) as seller", async function () {
      const { token, marketplace, alice, carol, market } =
        await networkHelpers.loadFixture(marketFixture);
      await token.connect(alice).setApprovalForAll(carol.address, true);
      await expect(safeList({ token, market }, alice, 2n, terms(PRICE, 7), carol))
        .to.emit(marketplace, "ListingCreated")
        .withArgs(1n, 2n, alice.address, PRICE, (expiresAt: bigint) => expiresAt > 0n);
      expect((await marketplace.getListing(1n)).seller).to.equal(alice.address);
    });

    it("safeTransferFrom accepts 1 and 365 days", async function () {
      const { token, marketplace, alice, market } = await networkHelpers.loadFixture(marketFixture);
      await safeList({ token, market }, alice, 1n, terms(PRICE, 1));
      await safeList({ token, market }, alice, 2n, terms(PRICE, 365));
      const l1 = await marketplace.getListing(1n);
      const l2 = await marketplace.getListing(2n);
      expect(l1.expiresAt - l1.listedAt).to.equal(DAY);
      expect(l2.expiresAt - l2.listedAt).to.equal(365n * DAY);
    });

    for (const days of [0n, 366n, 2n ** 200n]) {
      it(`safeTransferFrom reverts with InvalidDuration for ${days} days`, async function () {
        const { token, marketplace, alice, market } =
          await networkHelpers.loadFixture(marketFixture);
        await expect(safeList({ token, market }, alice, 1n, terms(PRICE, days)))
          .to.be.revertedWithCustomError(marketplace, "Marketplace__InvalidDuration")
          .withArgs(days);
      });
    }

    it("safeTransferFrom reverts with ZeroPrice for a zero price", async function () {
      const { token, marketplace, alice, market } = await networkHelpers.loadFixture(marketFixture);
      await expect(
        safeList({ token, market }, alice, 1n, terms(0n, 30)),
      ).to.be.revertedWithCustomError(marketplace, "Marketplace__ZeroPrice");
    });

    for (const [label, data] of <Array<[string, string]>>[
      ["empty data (safeTransferFrom without data)", "0x"],
      ["one word", coder.encode(["uint256"], [PRICE])],
      ["three words", coder.encode(["uint256", "uint256", "uint256"], [PRICE, 30, 1])],
      ["a truncated payload", terms(PRICE, 30).slice(0, -2)],
    ]) {
      it(`safeTransferFrom reverts with InvalidListingData for ${label}`, async function () {
        const { token, marketplace, alice, market } =
          await networkHelpers.loadFixture(marketFixture);
        await expect(safeList({ token, market }, alice, 1n, data)).to.be.revertedWithCustomError(
          marketplace,
          "Marketplace__InvalidListingData",
        );
        expect(await token.ownerOf(1n)).to.equal(alice.address);
      });
    }

    it("safeTransferFrom without data reverts with InvalidListingData", async function () {
      const { token, marketplace, alice, market } = await networkHelpers.loadFixture(marketFixture);
      await expect(
        token.connect(alice).getFunction("safeTransferFrom(address,address,uint256)")(
          alice.address,
          market,
          1n,
        ),
      ).to.be.revertedWithCustomError(marketplace, "Marketplace__InvalidListingData");
    });

    it("onERC721Received reverts with UnsupportedToken for a token from another ERC-721 contract", async function () {
      const { marketplace, alice, market } = await networkHelpers.loadFixture(marketFixture);
      const plain = await ethers.deployContract("PlainERC721");
      await plain.mint(alice.address);
      await expect(
        plain.connect(alice).getFunction("safeTransferFrom(address,address,uint256,bytes)")(
          alice.address,
          market,
          1n,
          terms(PRICE, 30),
        ),
      )
        .to.be.revertedWithCustomError(marketplace, "Marketplace__UnsupportedToken")
        .withArgs(await plain.getAddress());
    });

    it("onERC721Received reverts with UnsupportedToken when called directly by an account", async function () {
      const { marketplace, alice } = await networkHelpers.loadFixture(marketFixture);
      await expect(
        marketplace
          .connect(alice)
          .onERC721Received(alice.address, alice.address, 1n, terms(PRICE, 30)),
      )
        .to.be.revertedWithCustomError(marketplace, "Marketplace__UnsupportedToken")
        .withArgs(alice.address);
    });
  });

  describe("list", function () {
    it("list after approve escrows the token and emits ListingCreated", async function () {
      const { token, marketplace, alice, market } = await networkHelpers.loadFixture(marketFixture);
      await token.connect(alice).approve(market, 3n);
      await expect(marketplace.connect(alice).list(3n, PRICE, 30n))
        .to.emit(marketplace, "ListingCreated")
        .withArgs(1n, 3n, alice.address, PRICE, (e: bigint) => e > 0n)
        .and.to.emit(token, "Transfer")
        .withArgs(alice.address, market, 3n);
      expect(await token.ownerOf(3n)).to.equal(market);
    });

    it("list returns the new listing id", async function () {
      const { token, marketplace, alice, market } = await networkHelpers.loadFixture(listedFixture);
      await token.connect(alice).setApprovalForAll(market, true);
      expect(await marketplace.connect(alice).list.staticCall(2n, PRICE, 30n)).to.equal(2n);
    });

    it("list reverts with ERC721InsufficientApproval without an approval", async function () {
      const { token, marketplace, alice, market } = await networkHelpers.loadFixture(marketFixture);
      await expect(marketplace.connect(alice).list(1n, PRICE, 30n))
        .to.be.revertedWithCustomError(token, "ERC721InsufficientApproval")
        .withArgs(market, 1n);
    });

    it("list reverts with ERC721IncorrectOwner when the caller does not own the token", async function () {
      const { token, marketplace, alice, bob, market } =
        await networkHelpers.loadFixture(marketFixture);
      await token.connect(alice).approve(market, 1n);
      await expect(marketplace.connect(bob).list(1n, PRICE, 30n))
        .to.be.revertedWithCustomError(token, "ERC721IncorrectOwner")
        .withArgs(bob.address, 1n, alice.address);
    });

    it("list reverts with ZeroPrice and InvalidDuration on bad terms", async function () {
      const { token, marketplace, alice, market } = await networkHelpers.loadFixture(marketFixture);
      await token.connect(alice).approve(market, 1n);
      await expect(marketplace.connect(alice).list(1n, 0n, 30n)).to.be.revertedWithCustomError(
        marketplace,
        "Marketplace__ZeroPrice",
      );
      await expect(marketplace.connect(alice).list(1n, PRICE, 0n))
        .to.be.revertedWithCustomError(marketplace, "Marketplace__InvalidDuration")
        .withArgs(0n);
      await expect(marketplace.connect(alice).list(1n, PRICE, 366n))
        .to.be.revertedWithCustomError(marketplace, "Marketplace__InvalidDuration")
        .withArgs(366n);
    });
  });

  describe("updatePrice", function () {
    it("updatePrice changes the price and emits ListingPriceUpdated with old and new price", async function () {
      const { marketplace, alice } = await networkHelpers.loadFixture(listedFixture);
      const newPrice = ethers.parseEther("2");
      await expect(marketplace.connect(alice).updatePrice(1n, newPrice))
        .to.emit(marketplace, "ListingPriceUpdated")
        .withArgs(1n, 1n, alice.address, PRICE, newPrice);
      expect((await marketplace.getListing(1n)).price).to.equal(newPrice);
    });

    it("updatePrice reverts with NotSeller for anyone else", async function () {
      const { marketplace, bob } = await networkHelpers.loadFixture(listedFixture);
      await expect(marketplace.connect(bob).updatePrice(1n, 5n))
        .to.be.revertedWithCustomError(marketplace, "Marketplace__NotSeller")
        .withArgs(1n, bob.address);
    });

    it("updatePrice reverts with ZeroPrice for a zero price", async function () {
      const { marketplace, alice } = await networkHelpers.loadFixture(listedFixture);
      await expect(marketplace.connect(alice).updatePrice(1n, 0n)).to.be.revertedWithCustomError(
        marketplace,
        "Marketplace__ZeroPrice",
      );
    });

    it("updatePrice reverts with ListingNotActive for an unknown, sold, cancelled or expired listing", async function () {
      const { marketplace, alice } = await networkHelpers.loadFixture(closedListingsFixture);
      await expectListingNotActive(marketplace, (id) =>
        marketplace.connect(alice).updatePrice(id, 1n),
      );
    });
  });

  describe("buy", function () {
    it("buy at the exact price moves the token to the buyer, pays the seller and marks the listing Sold", async function () {
      const { token, marketplace, alice, bob, market } =
        await networkHelpers.loadFixture(listedFixture);
      const tx = marketplace.connect(bob).buy(1n, PRICE, { value: PRICE });
      await expect(tx)
        .to.emit(marketplace, "ListingSold")
        .withArgs(1n, 1n, alice.address, bob.address, PRICE);
      await expect(tx).to.emit(token, "Transfer").withArgs(market, bob.address, 1n);
      await expect(tx).to.changeEtherBalances(
        ethers,
        [bob, alice, marketplace],
        [-PRICE, PRICE, 0n],
      );
      expect(await token.ownerOf(1n)).to.equal(bob.address);
      const listing = await marketplace.getListing(1n);
      expect(listing.state).to.equal(State.Sold);
      expect(listing.buyer).to.equal(bob.address);
      expect(await marketplace.stateOf(1n)).to.equal(State.Sold);
    });

    it("buy refunds value above the price to the buyer", async function () {
      const { marketplace, alice, bob } = await networkHelpers.loadFixture(listedFixture);
      const sent = ethers.parseEther("3");
      await expect(marketplace.connect(bob).buy(1n, sent, { value: sent })).to.changeEtherBalances(
        ethers,
        [bob, alice, marketplace],
        [-PRICE, PRICE, 0n],
      );
    });

    it("buy reverts with PriceAboveMax when the seller raised the price above the buyer's maximum", async function () {
      const { marketplace, alice, bob } = await networkHelpers.loadFixture(listedFixture);
      const raised = ethers.parseEther("5");
      await marketplace.connect(alice).updatePrice(1n, raised);
      await expect(marketplace.connect(bob).buy(1n, PRICE, { value: raised }))
        .to.be.revertedWithCustomError(marketplace, "Marketplace__PriceAboveMax")
        .withArgs(raised, PRICE);
    });

    it("buy reverts with InsufficientPayment when value is below the price", async function () {
      const { marketplace, bob } = await networkHelpers.loadFixture(listedFixture);
      await expect(marketplace.connect(bob).buy(1n, PRICE, { value: PRICE - 1n }))
        .to.be.revertedWithCustomError(marketplace, "Marketplace__InsufficientPayment")
        .withArgs(PRICE - 1n, PRICE);
    });

    it("buy reverts with SellerCannotBuy for the seller", async function () {
      const { marketplace, alice } = await networkHelpers.loadFixture(listedFixture);
      await expect(marketplace.connect(alice).buy(1n, PRICE, { value: PRICE }))
        .to.be.revertedWithCustomError(marketplace, "Marketplace__SellerCannotBuy")
        .withArgs(1n);
    });

    it("buy reverts with ListingNotActive for an unknown, sold, cancelled or expired listing", async function () {
      const { marketplace, carol } = await networkHelpers.loadFixture(closedListingsFixture);
      await expectListingNotActive(marketplace, (id) =>
        marketplace.connect(carol).buy(id, PRICE, { value: PRICE }),
      );
    });

    it("buy works one second before expiresAt and reverts with ListingNotActive at expiresAt", async function () {
      const { marketplace, bob, carol } = await networkHelpers.loadFixture(listedFixture);
      const { expiresAt } = await marketplace.getListing(1n);
      await networkHelpers.time.setNextBlockTimestamp(expiresAt);
      await expect(marketplace.connect(bob).buy(1n, PRICE, { value: PRICE }))
        .to.be.revertedWithCustomError(marketplace, "Marketplace__ListingNotActive")
        .withArgs(1n);
      const fresh = await networkHelpers.loadFixture(listedFixture);
      const listing = await fresh.marketplace.getListing(1n);
      await networkHelpers.time.setNextBlockTimestamp(listing.expiresAt - 1n);
      await expect(fresh.marketplace.connect(carol).buy(1n, PRICE, { value: PRICE })).to.emit(
        fresh.marketplace,
        "ListingSold",
      );
    });

    it("buy credits the proceeds when the seller cannot receive coins, keeping balance == totalProceeds", async function () {
      const { token, marketplace, alice, bob, market } =
        await networkHelpers.loadFixture(marketFixture);
      const seller = await ethers.deployContract("ActorMock");
      const sellerAddress = await seller.getAddress();
      await token.connect(alice).transferFrom(alice.address, sellerAddress, 1n);
      await seller.setAcceptEther(false);
      const listData = token.interface.encodeFunctionData(
        "safeTransferFrom(address,address,uint256,bytes)",
        [sellerAddress, market, 1n, terms(PRICE, 30)],
      );
      await seller.execute(await token.getAddress(), 0n, listData);
      await expect(marketplace.connect(bob).buy(1n, PRICE, { value: PRICE }))
        .to.emit(marketplace, "ProceedsCredited")
        .withArgs(sellerAddress, PRICE);
      expect(await marketplace.proceedsOf(sellerAddress)).to.equal(PRICE);
      expect(await marketplace.totalProceeds()).to.equal(PRICE);
      expect(await ethers.provider.getBalance(market)).to.equal(PRICE);

      // While it still refuses coins, withdrawing fails and the credit stays.
      const withdraw = marketplace.interface.encodeFunctionData("withdrawProceeds");
      await expect(seller.execute(market, 0n, withdraw))
        .to.be.revertedWithCustomError(marketplace, "Marketplace__PaymentFailed")
        .withArgs(sellerAddress, PRICE);

      await seller.setAcceptEther(true);
      const withdrawTx = seller.execute(market, 0n, withdraw);
      await expect(withdrawTx)
        .to.emit(marketplace, "ProceedsWithdrawn")
        .withArgs(sellerAddress, PRICE);
      await expect(withdrawTx).to.changeEtherBalances(
        ethers,
        [seller, marketplace],
        [PRICE, -PRICE],
      );
      expect(await marketplace.proceedsOf(sellerAddress)).to.equal(0n);
      expect(await marketplace.totalProceeds()).to.equal(0n);
    });

    it("buy reverts (bubbling the receiver's reason) when a contract buyer does not accept the token", async function () {
      const { marketplace, market } = await networkHelpers.loadFixture(listedFixture);
      const buyer = await ethers.deployContract("ActorMock");
      await buyer.setAcceptTokens(false);
      const data = marketplace.interface.encodeFunctionData("buy", [1n, PRICE]);
      await expect(buyer.execute(market, PRICE, data, { value: PRICE })).to.be.revertedWith(
        "ActorMock: no tokens",
      );
      expect(await marketplace.stateOf(1n)).to.equal(State.Active);
    });

    it("buy reverts with PaymentFailed when the excess cannot be refunded to the buyer", async function () {
      const { marketplace, market } = await networkHelpers.loadFixture(listedFixture);
      const buyer = await ethers.deployContract("ActorMock");
      await buyer.setAcceptEther(false);
      const data = marketplace.interface.encodeFunctionData("buy", [1n, PRICE * 2n]);
      await expect(buyer.execute(market, PRICE * 2n, data, { value: PRICE * 2n }))
        .to.be.revertedWithCustomError(marketplace, "Marketplace__PaymentFailed")
        .withArgs(await buyer.getAddress(), PRICE);
    });

    it("buy cannot be re-entered from the buyer's onERC721Received hook", async function () {
      const { token, marketplace, alice, market } = await networkHelpers.loadFixture(listedFixture);
      await safeList({ token, market }, alice, 2n, terms(PRICE, 30));
      const buyer = await ethers.deployContract("ActorMock");
      await buyer.setHook(market, marketplace.interface.encodeFunctionData("delist", [2n]));
      const data = marketplace.interface.encodeFunctionData("buy", [1n, PRICE]);
      await buyer.execute(market, PRICE, data, { value: PRICE });
      expect(await buyer.hookCalls()).to.equal(1n);
      expect(await buyer.hookSucceeded()).to.equal(false);
      expect(marketplace.interface.parseError(await buyer.hookReturnData())?.name).to.equal(
        "ReentrancyGuardReentrantCall",
      );
      expect(await token.ownerOf(1n)).to.equal(await buyer.getAddress());
      expect(await marketplace.stateOf(2n)).to.equal(State.Active);
    });

    it("a bought token can be listed again by its new owner under a new listing id", async function () {
      const { token, marketplace, bob, market } = await networkHelpers.loadFixture(listedFixture);
      await marketplace.connect(bob).buy(1n, PRICE, { value: PRICE });
      await expect(safeList({ token, market }, bob, 1n, terms(PRICE * 2n, 30)))
        .to.emit(marketplace, "ListingCreated")
        .withArgs(2n, 1n, bob.address, PRICE * 2n, (e: bigint) => e > 0n);
    });
  });

  describe("delist", function () {
    it("delist returns the token to the seller, emits ListingCancelled and stores Cancelled", async function () {
      const { token, marketplace, alice } = await networkHelpers.loadFixture(listedFixture);
      await expect(marketplace.connect(alice).delist(1n))
        .to.emit(marketplace, "ListingCancelled")
        .withArgs(1n, 1n, alice.address);
      expect(await token.ownerOf(1n)).to.equal(alice.address);
      expect(await marketplace.stateOf(1n)).to.equal(State.Cancelled);
    });

    it("delist reverts with NotSeller for anyone else", async function () {
      const { marketplace, bob } = await networkHelpers.loadFixture(listedFixture);
      await expect(marketplace.connect(bob).delist(1n))
        .to.be.revertedWithCustomError(marketplace, "Marketplace__NotSeller")
        .withArgs(1n, bob.address);
    });

    it("delist reverts with ListingNotActive when already cancelled, sold, expired or unknown", async function () {
      const { marketplace, alice } = await networkHelpers.loadFixture(closedListingsFixture);
      await expectListingNotActive(marketplace, (id) => marketplace.connect(alice).delist(id));
    });
  });

  describe("reclaim and expiry", function () {
    it("stateOf reads Expired once expiresAt is reached, without a transaction", async function () {
      const { marketplace } = await networkHelpers.loadFixture(listedFixture);
      const { expiresAt } = await marketplace.getListing(1n);
      await networkHelpers.time.increaseTo(expiresAt - 1n);
      expect(await marketplace.stateOf(1n)).to.equal(State.Active);
      await networkHelpers.time.increaseTo(expiresAt);
      expect(await marketplace.stateOf(1n)).to.equal(State.Expired);
      expect((await marketplace.getListing(1n)).state).to.equal(State.Active);
    });

    it("stateOf reads None for an unknown listing", async function () {
      const { marketplace } = await networkHelpers.loadFixture(marketFixture);
      expect(await marketplace.stateOf(1n)).to.equal(State.None);
    });

    it("reclaim returns the token of an expired listing, emits ListingReclaimed and stores Expired", async function () {
      const { token, marketplace, alice } = await networkHelpers.loadFixture(listedFixture);
      await networkHelpers.time.increase(30n * DAY);
      await expect(marketplace.connect(alice).reclaim(1n))
        .to.emit(marketplace, "ListingReclaimed")
        .withArgs(1n, 1n, alice.address);
      expect(await token.ownerOf(1n)).to.equal(alice.address);
      expect((await marketplace.getListing(1n)).state).to.equal(State.Expired);
      expect(await marketplace.stateOf(1n)).to.equal(State.Expired);
    });

    it("reclaim reverts with NotExpired before expiresAt", async function () {
      const { marketplace, alice } = await networkHelpers.loadFixture(listedFixture);
      const { expiresAt } = await marketplace.getListing(1n);
      await expect(marketplace.connect(alice).reclaim(1n))
        .to.be.revertedWithCustomError(marketplace, "Marketplace__NotExpired")
        .withArgs(1n, expiresAt);
    });

    it("reclaim reverts with NotSeller for anyone else", async function () {
      const { marketplace, bob } = await networkHelpers.loadFixture(listedFixture);
      await networkHelpers.time.increase(31n * DAY);
      await expect(marketplace.connect(bob).reclaim(1n))
        .to.be.revertedWithCustomError(marketplace, "Marketplace__NotSeller")
        .withArgs(1n, bob.address);
    });

    it("reclaim reverts with ListingNotActive for a sold, cancelled, reclaimed or unknown listing", async function () {
      const { marketplace, alice } = await networkHelpers.loadFixture(closedListingsFixture);
      await marketplace.connect(alice).reclaim(Closed.expired);
      await expectListingNotActive(marketplace, (id) => marketplace.connect(alice).reclaim(id));
    });
  });

  describe("rescueToken", function () {
    /** Bob's token 1 (bought from Alice) sent to the marketplace with a plain transferFrom. */
    async function strayFixture() {
      const system = await listedFixture();
      const { token, marketplace, alice, bob, market } = system;
      await marketplace.connect(bob).buy(1n, PRICE, { value: PRICE });
      await token.connect(bob).transferFrom(bob.address, market, 1n);
      await token.connect(alice).transferFrom(alice.address, market, 2n);
      return system;
    }

    it("rescueToken returns a token that arrived by plain transferFrom to the named address and emits TokenRescued", async function () {
      const { token, marketplace, admin, bob } = await networkHelpers.loadFixture(strayFixture);
      expect(await marketplace.activeListingOf(1n)).to.equal(0n);
      await expect(marketplace.connect(admin).rescueToken(1n, bob.address))
        .to.emit(marketplace, "TokenRescued")
        .withArgs(1n, bob.address, admin.address);
      expect(await token.ownerOf(1n)).to.equal(bob.address);
      expect((await marketplace.getListing(1n)).state).to.equal(State.Sold);
    });

    it("rescueToken of a never-listed token sends it to an address other than its last owner", async function () {
      const { token, marketplace, admin, carol } = await networkHelpers.loadFixture(strayFixture);
      await marketplace.connect(admin).rescueToken(2n, carol.address);
      expect(await token.ownerOf(2n)).to.equal(carol.address);
    });

    it("rescueToken reverts with TokenListed for the token of an active listing", async function () {
      const { token, marketplace, admin } = await networkHelpers.loadFixture(listedFixture);
      expect(await marketplace.activeListingOf(1n)).to.equal(1n);
      await expect(marketplace.connect(admin).rescueToken(1n, admin.address))
        .to.be.revertedWithCustomError(marketplace, "Marketplace__TokenListed")
        .withArgs(1n, 1n);
      expect(await token.ownerOf(1n)).to.equal(await marketplace.getAddress());
    });

    it("rescueToken reverts with TokenListed for the token of an expired listing its seller has not reclaimed", async function () {
      const { marketplace, admin, alice } = await networkHelpers.loadFixture(listedFixture);
      await networkHelpers.time.increase(31n * DAY);
      expect(await marketplace.stateOf(1n)).to.equal(State.Expired);
      await expect(marketplace.connect(admin).rescueToken(1n, admin.address))
        .to.be.revertedWithCustomError(marketplace, "Marketplace__TokenListed")
        .withArgs(1n, 1n);
      await marketplace.connect(alice).reclaim(1n);
      expect(await marketplace.activeListingOf(1n)).to.equal(0n);
    });

    it("rescueToken reverts with TokenListed for a relisted token whose earlier listing was sold", async function () {
      const { token, marketplace, admin, bob, market } =
        await networkHelpers.loadFixture(listedFixture);
      await marketplace.connect(bob).buy(1n, PRICE, { value: PRICE });
      await safeList({ token, market }, bob, 1n, terms(PRICE, 30));
      expect(await marketplace.activeListingOf(1n)).to.equal(2n);
      await expect(marketplace.connect(admin).rescueToken(1n, admin.address))
        .to.be.revertedWithCustomError(marketplace, "Marketplace__TokenListed")
        .withArgs(1n, 2n);
    });

    it("rescueToken reverts with AccessControlUnauthorizedAccount for a caller without OPERATOR_ROLE", async function () {
      const { token, marketplace, bob, market } = await networkHelpers.loadFixture(strayFixture);
      await expect(marketplace.connect(bob).rescueToken(1n, bob.address))
        .to.be.revertedWithCustomError(marketplace, "AccessControlUnauthorizedAccount")
        .withArgs(bob.address, await marketplace.OPERATOR_ROLE());
      expect(await token.ownerOf(1n)).to.equal(market);
    });

    it("rescueToken works for an account the admin granted OPERATOR_ROLE", async function () {
      const { token, marketplace, admin, carol } = await networkHelpers.loadFixture(strayFixture);
      await marketplace.connect(admin).grantRole(await marketplace.OPERATOR_ROLE(), carol.address);
      await marketplace.connect(carol).rescueToken(1n, carol.address);
      expect(await token.ownerOf(1n)).to.equal(carol.address);
    });

    it("rescueToken reverts with TokenNotHeld for a token the marketplace does not hold", async function () {
      const { marketplace, admin } = await networkHelpers.loadFixture(strayFixture);
      await expect(marketplace.connect(admin).rescueToken(3n, admin.address))
        .to.be.revertedWithCustomError(marketplace, "Marketplace__TokenNotHeld")
        .withArgs(3n);
    });

    it("rescueToken reverts with ERC721NonexistentToken for a token that was never minted", async function () {
      const { token, marketplace, admin } = await networkHelpers.loadFixture(strayFixture);
      await expect(marketplace.connect(admin).rescueToken(99n, admin.address))
        .to.be.revertedWithCustomError(token, "ERC721NonexistentToken")
        .withArgs(99n);
    });

    it("rescueToken reverts with ERC721InvalidReceiver for the zero address or the marketplace itself", async function () {
      const { marketplace, admin, market } = await networkHelpers.loadFixture(strayFixture);
      for (const to of [ethers.ZeroAddress, market]) {
        await expect(marketplace.connect(admin).rescueToken(1n, to))
          .to.be.revertedWithCustomError(marketplace, "ERC721InvalidReceiver")
          .withArgs(to);
      }
    });
  });

  describe("withdrawProceeds", function () {
    it("withdrawProceeds reverts with NothingToWithdraw when nothing is credited", async function () {
      const { marketplace, alice } = await networkHelpers.loadFixture(listedFixture);
      await expect(marketplace.connect(alice).withdrawProceeds()).to.be.revertedWithCustomError(
        marketplace,
        "Marketplace__NothingToWithdraw",
      );
    });
  });
});
