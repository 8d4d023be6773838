import { expect } from "chai";
import { network } from "hardhat";
import { CID } from "multiformats/cid";
import { sha256 } from "multiformats/hashes/sha2";
import { deploySystem } from "./helpers/deploy.js";
import {
  cidV0,
  cidV1,
  codec,
  digestOf,
  expectedCidText,
  hashCode,
  partsFromText,
  type CidParts,
} from "./helpers/cid.js";
import { shouldBehaveLikeERC721, type ERC721Like } from "./behaviors/erc721.behavior.js";

const { ethers, networkHelpers } = await network.create();

const STAKE = ethers.parseEther("0.1");
const PASSWORD = "open sesame";
const PASSWORD_HASH = ethers.id(PASSWORD);
const CID_A = cidV1(digestOf("asset a"));

async function tokenFixture() {
  return deploySystem(ethers);
}

/** Alice holds token 1 (with password) and token 2 (without). */
async function mintedFixture() {
  const system = await deploySystem(ethers);
  const { token, alice } = system;
  await token.connect(alice).mint("Real Estate", CID_A, PASSWORD_HASH, { value: STAKE });
  await token.connect(alice).mint("Wine", cidV0(digestOf("asset b")), ethers.ZeroHash, {
    value: ethers.parseEther("0.25"),
  });
  return system;
}

describe("AssetToken", function () {
  describe("deployment", function () {
    it("deployment sets name, symbol, registry, admin and the first token id", async function () {
      const { token, registry, admin } = await networkHelpers.loadFixture(tokenFixture);
      expect(await token.name()).to.equal("RWA Asset");
      expect(await token.symbol()).to.equal("RWA");
      expect(await token.registry()).to.equal(await registry.getAddress());
      expect(await token.MIN_STAKE()).to.equal(STAKE);
      expect(await token.nextTokenId()).to.equal(1n);
      expect(await token.totalStaked()).to.equal(0n);
      expect(await token.totalSupply()).to.equal(0n);
      expect(await token.baseURI()).to.equal("");
      expect(await token.hasRole(await token.DEFAULT_ADMIN_ROLE(), admin.address)).to.equal(true);
    });

    it("deployment reverts with ZeroAddress for a zero registry or admin", async function () {
      const { token, registry, admin } = await networkHelpers.loadFixture(tokenFixture);
      const factory = await ethers.getContractFactory("AssetToken");
      await expect(factory.deploy(ethers.ZeroAddress, admin.address)).to.be.revertedWithCustomError(
        token,
        "AssetToken__ZeroAddress",
      );
      await expect(
        factory.deploy(await registry.getAddress(), ethers.ZeroAddress),
      ).to.be.revertedWithCustomError(token, "AssetToken__ZeroAddress");
    });
  });

  describe("mint", function () {
    it("mint gives sequential ids from 1 to the caller and records type, stake, CID and password", async function () {
      const { token, alice } = await networkHelpers.loadFixture(mintedFixture);
      expect(await token.ownerOf(1n)).to.equal(alice.address);
      expect(await token.ownerOf(2n)).to.equal(alice.address);
      expect(await token.nextTokenId()).to.equal(3n);
      expect(await token.totalSupply()).to.equal(2n);
      expect(await token.assetTypeOf(1n)).to.equal("Real Estate");
      expect(await token.assetTypeOf(2n)).to.equal("Wine");
      expect(await token.assetTypeIdOf(1n)).to.equal(ethers.id("Real Estate"));
      expect(await token.stakeOf(1n)).to.equal(STAKE);
      expect(await token.stakeOf(2n)).to.equal(ethers.parseEther("0.25"));
      expect(await token.passwordHashOf(1n)).to.equal(PASSWORD_HASH);
      expect(await token.passwordHashOf(2n)).to.equal(ethers.ZeroHash);
      const cid = await token.cidOf(1n);
      expect([cid.digest, cid.version, cid.codec, cid.hashCode]).to.deep.equal([
        CID_A.digest,
        1n,
        0x55n,
        0x12n,
      ]);
    });

    it("mint emits AssetIssued with every field and Transfer from the zero address", async function () {
      const { token, alice } = await networkHelpers.loadFixture(tokenFixture);
      const cid = cidV1(digestOf("x"), codec.dagJson, hashCode.blake3);
      await expect(token.connect(alice).mint("Bond", cid, PASSWORD_HASH, { value: STAKE }))
        .to.emit(token, "AssetIssued")
        .withArgs(
          1n,
          alice.address,
          ethers.id("Bond"),
          STAKE,
          cid.digest,
          1,
          codec.dagJson,
          hashCode.blake3,
          PASSWORD_HASH,
          alice.address,
        )
        .and.to.emit(token, "Transfer")
        .withArgs(ethers.ZeroAddress, alice.address, 1n);
    });

    it("mint keeps the stake in the contract and adds it to totalStaked", async function () {
      const { token, alice } = await networkHelpers.loadFixture(tokenFixture);
      const value = ethers.parseEther("1.5");
      await expect(
        token.connect(alice).mint("Art", CID_A, ethers.ZeroHash, { value }),
      ).to.changeEtherBalances(ethers, [alice, token], [-value, value]);
      expect(await token.totalStaked()).to.equal(value);
      expect(await ethers.provider.getBalance(await token.getAddress())).to.equal(value);
    });

    it("mint accepts exactly 0.1 coin", async function () {
      const { token, alice } = await networkHelpers.loadFixture(tokenFixture);
      await expect(
        token.connect(alice).mint("Art", CID_A, ethers.ZeroHash, { value: STAKE }),
      ).to.emit(token, "AssetIssued");
    });

    it("mint reverts with BelowMinStake when value is under 0.1", async function () {
      const { token, alice } = await networkHelpers.loadFixture(tokenFixture);
      await expect(token.connect(alice).mint("Art", CID_A, ethers.ZeroHash, { value: STAKE - 1n }))
        .to.be.revertedWithCustomError(token, "AssetToken__BelowMinStake")
        .withArgs(STAKE - 1n, STAKE);
      await expect(token.connect(alice).mint("Art", CID_A, ethers.ZeroHash))
        .to.be.revertedWithCustomError(token, "AssetToken__BelowMinStake")
        .withArgs(0n, STAKE);
    });

    it("mint reverts with StakeTooLarge when value does not fit in 96 bits", async function () {
      const { token, alice } = await networkHelpers.loadFixture(tokenFixture);
      const tooMuch = 2n ** 96n;
      await networkHelpers.setBalance(alice.address, tooMuch * 2n);
      await expect(token.connect(alice).mint("Art", CID_A, ethers.ZeroHash, { value: tooMuch }))
        .to.be.revertedWithCustomError(token, "AssetToken__StakeTooLarge")
        .withArgs(tooMuch);
      await expect(
        token.connect(alice).mint("Art", CID_A, ethers.ZeroHash, { value: tooMuch - 1n }),
      ).to.emit(token, "AssetIssued");
      expect(await token.stakeOf(1n)).to.equal(tooMuch - 1n);
    });

    it("mint reverts with UnknownAssetType for an unregistered or differently cased type", async function () {
      const { token, alice } = await networkHelpers.loadFixture(tokenFixture);
      for (const name of ["Spaceship", "real estate", "Real Estate ", ""]) {
        await expect(token.connect(alice).mint(name, CID_A, ethers.ZeroHash, { value: STAKE }))
          .to.be.revertedWithCustomError(token, "AssetToken__UnknownAssetType")
          .withArgs(name);
      }
    });

    it("mint accepts a type registered after deployment", async function () {
      const { token, registry, alice } = await networkHelpers.loadFixture(tokenFixture);
      await registry.registerType("Spaceship");
      await token.connect(alice).mint("Spaceship", CID_A, ethers.ZeroHash, { value: STAKE });
      expect(await token.assetTypeOf(1n)).to.equal("Spaceship");
    });

    const invalidCids: Array<[string, CidParts]> = [
      ["version 2", { ...CID_A, version: 2 }],
      ["a zero digest", { ...CID_A, digest: ethers.ZeroHash }],
      ["a v0 CID with a codec other than dag-pb", { ...cidV0(digestOf("v0")), codec: codec.raw }],
      [
        "a v0 CID with a hash other than sha2-256",
        { ...cidV0(digestOf("v0")), hashCode: hashCode.blake3 },
      ],
    ];
    for (const [label, cid] of invalidCids) {
      it(`mint reverts with InvalidCid for ${label}`, async function () {
        const { token, alice } = await networkHelpers.loadFixture(tokenFixture);
        await expect(
          token.connect(alice).mint("Art", cid, ethers.ZeroHash, { value: STAKE }),
        ).to.be.revertedWithCustomError(token, "AssetToken__InvalidCid");
      });
    }

    it("mint to a contract caller that is not a receiver reverts with ERC721InvalidReceiver", async function () {
      const { token } = await networkHelpers.loadFixture(tokenFixture);
      const actor = await ethers.deployContract("ActorMock");
      await actor.setAcceptTokens(false);
      const data = token.interface.encodeFunctionData("mint", ["Art", CID_A, ethers.ZeroHash]);
      await expect(
        actor.execute(await token.getAddress(), STAKE, data, { value: STAKE }),
      ).to.be.revertedWith("ActorMock: no tokens");
    });
  });

  describe("mintTo", function () {
    it("mintTo gives the token to the given owner and records the caller as minter", async function () {
      const { token, alice, bob } = await networkHelpers.loadFixture(tokenFixture);
      await expect(
        token.connect(alice).mintTo(bob.address, "Loan", CID_A, PASSWORD_HASH, { value: STAKE }),
      )
        .to.emit(token, "AssetIssued")
        .withArgs(
          1n,
          bob.address,
          ethers.id("Loan"),
          STAKE,
          CID_A.digest,
          1,
          codec.raw,
          hashCode.sha2_256,
          PASSWORD_HASH,
          alice.address,
        );
      expect(await token.ownerOf(1n)).to.equal(bob.address);
      expect(await token.balanceOf(alice.address)).to.equal(0n);
    });

    for (const [label, receiver] of <Array<[string, () => Promise<string>]>>[
      ["the zero owner", () => Promise.resolve(ethers.ZeroAddress)],
      [
        "a contract that is not a receiver",
        async () => (await ethers.deployContract("NonReceiverMock")).getAddress(),
      ],
    ]) {
      it(`mintTo reverts with ERC721InvalidReceiver for ${label}`, async function () {
        const { token, alice } = await networkHelpers.loadFixture(tokenFixture);
        const to = await receiver();
        await expect(
          token.connect(alice).mintTo(to, "Loan", CID_A, ethers.ZeroHash, { value: STAKE }),
        )
          .to.be.revertedWithCustomError(token, "ERC721InvalidReceiver")
          .withArgs(to);
      });
    }

    it("mintTo an accepting receiver contract succeeds after all state is recorded", async function () {
      const { token, alice } = await networkHelpers.loadFixture(tokenFixture);
      const receiver = await ethers.deployContract("ERC721ReceiverMock", ["0x150b7a02", 0]);
      await expect(
        token
          .connect(alice)
          .mintTo(await receiver.getAddress(), "Loan", CID_A, ethers.ZeroHash, { value: STAKE }),
      )
        .to.emit(receiver, "Received")
        .withArgs(alice.address, ethers.ZeroAddress, 1n, "0x", (gas: bigint) => gas > 0n);
    });

    it("mintTo the marketplace reverts with InvalidListingData (no seller, no terms)", async function () {
      const { token, marketplace, alice } = await networkHelpers.loadFixture(tokenFixture);
      await expect(
        token
          .connect(alice)
          .mintTo(await marketplace.getAddress(), "Loan", CID_A, ethers.ZeroHash, { value: STAKE }),
      ).to.be.revertedWithCustomError(marketplace, "Marketplace__InvalidListingData");
    });
  });

  describe("redeem", function () {
    it("redeem burns the token, pays the stake to the owner and emits AssetRedeemed", async function () {
      const { token, alice } = await networkHelpers.loadFixture(mintedFixture);
      const stake = ethers.parseEther("0.25");
      const tx = token.connect(alice).redeem(2n);
      await expect(tx).to.emit(token, "AssetRedeemed").withArgs(2n, alice.address, stake);
      await expect(tx).to.emit(token, "Transfer").withArgs(alice.address, ethers.ZeroAddress, 2n);
      await expect(tx).to.changeEtherBalances(ethers, [alice, token], [stake, -stake]);
      expect(await token.totalStaked()).to.equal(STAKE);
      expect(await token.totalSupply()).to.equal(1n);
      expect(await token.balanceOf(alice.address)).to.equal(1n);
      expect(await token.nextTokenId()).to.equal(3n);
      await expect(token.ownerOf(2n))
        .to.be.revertedWithCustomError(token, "ERC721NonexistentToken")
        .withArgs(2n);
    });

    it("redeem pays the current owner after a transfer, not the minter", async function () {
      const { token, alice, bob } = await networkHelpers.loadFixture(mintedFixture);
      await token.connect(alice).transferFrom(alice.address, bob.address, 1n);
      await expect(token.connect(bob).redeem(1n)).to.changeEtherBalances(
        ethers,
        [bob, alice],
        [STAKE, 0n],
      );
    });

    it("redeem reverts with NotTokenOwner for anyone but the owner, even an approved operator", async function () {
      const { token, alice, bob } = await networkHelpers.loadFixture(mintedFixture);
      await token.connect(alice).setApprovalForAll(bob.address, true);
      await expect(token.connect(bob).redeem(1n))
        .to.be.revertedWithCustomError(token, "AssetToken__NotTokenOwner")
        .withArgs(1n, bob.address);
    });

    it("redeem reverts with ERC721NonexistentToken for an unknown or already redeemed id", async function () {
      const { token, alice } = await networkHelpers.loadFixture(mintedFixture);
      await expect(token.connect(alice).redeem(99n))
        .to.be.revertedWithCustomError(token, "ERC721NonexistentToken")
        .withArgs(99n);
      await token.connect(alice).redeem(1n);
      await expect(token.connect(alice).redeem(1n))
        .to.be.revertedWithCustomError(token, "ERC721NonexistentToken")
        .withArgs(1n);
    });

    it("redeem reverts with StakeTransferFailed when the owner cannot receive coins", async function () {
      const { token, alice } = await networkHelpers.loadFixture(mintedFixture);
      const actor = await ethers.deployContract("ActorMock");
      const actorAddress = await actor.getAddress();
      await token.connect(alice).transferFrom(alice.address, actorAddress, 1n);
      await actor.setAcceptEther(false);
      const data = token.interface.encodeFunctionData("redeem", [1n]);
      await expect(actor.execute(await token.getAddress(), 0n, data))
        .to.be.revertedWithCustomError(token, "AssetToken__StakeTransferFailed")
        .withArgs(actorAddress, STAKE);
      expect(await token.ownerOf(1n)).to.equal(actorAddress);
    });

    it("redeem cannot be re-entered: a second redeem from the owner's receive hook fails and the stake is paid once", async function () {
      const { token, alice } = await networkHelpers.loadFixture(mintedFixture);
      const actor = await ethers.deployContract("ActorMock");
      const actorAddress = await actor.getAddress();
      await token.connect(alice).transferFrom(alice.address, actorAddress, 1n);
      const data = token.interface.encodeFunctionData("redeem", [1n]);
      await actor.setHook(await token.getAddress(), data);
      await expect(actor.execute(await token.getAddress(), 0n, data)).to.changeEtherBalances(
        ethers,
        [actor, token],
        [STAKE, -STAKE],
      );
      expect(await actor.hookCalls()).to.equal(1n);
      expect(await actor.hookSucceeded()).to.equal(false);
      const reason = token.interface.parseError(await actor.hookReturnData());
      expect(reason?.name).to.equal("ERC721NonexistentToken");
    });
  });

  describe("views", function () {
    it("checkPassword is true only for the right password and false when the token has none", async function () {
      const { token } = await networkHelpers.loadFixture(mintedFixture);
      expect(await token.checkPassword(1n, PASSWORD)).to.equal(true);
      expect(await token.checkPassword(1n, "wrong")).to.equal(false);
      expect(await token.checkPassword(2n, "")).to.equal(false);
      expect(await token.checkPassword(2n, PASSWORD)).to.equal(false);
    });

    for (const view of [
      "assetTypeOf",
      "assetTypeIdOf",
      "stakeOf",
      "passwordHashOf",
      "cidOf",
      "cidStringOf",
    ] as const) {
      it(`${view} reverts with ERC721NonexistentToken for an unknown id`, async function () {
        const { token } = await networkHelpers.loadFixture(mintedFixture);
        await expect(token.getFunction(view)(42n))
          .to.be.revertedWithCustomError(token, "ERC721NonexistentToken")
          .withArgs(42n);
      });
    }

    it("checkPassword reverts with ERC721NonexistentToken for an unknown id", async function () {
      const { token } = await networkHelpers.loadFixture(mintedFixture);
      await expect(token.checkPassword(42n, PASSWORD))
        .to.be.revertedWithCustomError(token, "ERC721NonexistentToken")
        .withArgs(42n);
    });

    it("supportsInterface reports ERC-4906, IAssetToken and AccessControl", async function () {
      const { token } = await networkHelpers.loadFixture(tokenFixture);
      const iface = (await ethers.getContractAt("IAssetToken", await token.getAddress())).interface;
      let id = 0n;
      iface.forEachFunction((fn) => {
        id ^= BigInt(fn.selector);
      });
      expect(await token.supportsInterface("0x49064906")).to.equal(true);
      expect(await token.supportsInterface(ethers.toBeHex(id, 4))).to.equal(true);
      expect(await token.supportsInterface("0x7965db0b")).to.equal(true);
    });

    it("the token has no receive function: a plain coin transfer reverts", async function () {
      const { token, alice } = await networkHelpers.loadFixture(tokenFixture);
      await expect(alice.sendTransaction({ to: await token.getAddress(), value: 1n })).to.be.revert(
        ethers,
      );
    });
  });

  describe("tokenURI", function () {
    async function mintWith(cid: CidParts) {
      const system = await networkHelpers.loadFixture(tokenFixture);
      await system.token.connect(system.alice).mint("Art", cid, ethers.ZeroHash, { value: STAKE });
      return system;
    }

    it("tokenURI renders a well-known CIDv0 as ipfs://Qm...", async function () {
      const text = "QmPZ9gcCEpqKTo6aq61g2nXGUhM4iCL3ewB6LDXZCtioEB";
      const { token } = await mintWith(partsFromText(text));
      expect(await token.tokenURI(1n)).to.equal(`ipfs://${text}`);
      expect(await token.cidStringOf(1n)).to.equal(text);
    });

    it("tokenURI renders the same content as CIDv1 dag-pb like multiformats' toV1()", async function () {
      const v1 = CID.parse("QmPZ9gcCEpqKTo6aq61g2nXGUhM4iCL3ewB6LDXZCtioEB").toV1();
      const { token } = await mintWith(partsFromText(v1.toString()));
      expect(await token.tokenURI(1n)).to.equal(`ipfs://${v1.toString()}`);
      expect(v1.toString().startsWith("bafybei")).to.equal(true);
    });

    it("tokenURI renders a raw sha2-256 CIDv1 of real content as CID.create(1, 0x55, sha256(bytes))", async function () {
      const multihash = await sha256.digest(new TextEncoder().encode("hello world"));
      const expected = CID.create(1, codec.raw, multihash).toString();
      const { token } = await mintWith(partsFromText(expected));
      expect(await token.tokenURI(1n)).to.equal(`ipfs://${expected}`);
      expect(expected.startsWith("bafkrei")).to.equal(true);
    });

    const cases: Array<[string, CidParts]> = [
      ["v0 dag-pb sha2-256", cidV0(digestOf("v0"))],
      ["v1 raw sha2-256", cidV1(digestOf("raw"), codec.raw)],
      ["v1 dag-pb sha2-256", cidV1(digestOf("pb"), codec.dagPb)],
      ["v1 dag-cbor sha2-256", cidV1(digestOf("cbor"), codec.dagCbor)],
      ["v1 dag-json (two-byte codec varint)", cidV1(digestOf("dj"), codec.dagJson)],
      ["v1 json 0x0200", cidV1(digestOf("json"), codec.json)],
      ["v1 libp2p-key", cidV1(digestOf("key"), codec.libp2pKey)],
      ["v1 raw blake3", cidV1(digestOf("b3"), codec.raw, hashCode.blake3)],
      ["v1 raw keccak-256", cidV1(digestOf("k"), codec.raw, hashCode.keccak256)],
      [
        "v1 raw blake2b-256 (three-byte hash varint 0xb220)",
        cidV1(digestOf("b2"), codec.raw, 0xb220),
      ],
      ["v1 with a large codec 0x300001", cidV1(digestOf("big"), 0x300001, hashCode.sha2_256)],
      [
        "v1 with a digest that starts with zero bytes",
        cidV1("0x0000" + digestOf("z").slice(6), codec.raw),
      ],
      [
        "v0 with a digest that starts with zero bytes",
        cidV0("0x00000000" + digestOf("z0").slice(10)),
      ],
      ["v0 with an all-0xff digest", cidV0("0x" + "ff".repeat(32))],
    ];
    for (const [label, parts] of cases) {
      it(`tokenURI matches the multiformats text for ${label}`, async function () {
        const { token } = await mintWith(parts);
        const expected = expectedCidText(parts);
        expect(await token.tokenURI(1n)).to.equal(`ipfs://${expected}`);
        expect(await token.cidStringOf(1n)).to.equal(expected);
      });
    }

    it("tokenURI reverts with ERC721NonexistentToken for an unknown id", async function () {
      const { token } = await networkHelpers.loadFixture(tokenFixture);
      await expect(token.tokenURI(1n))
        .to.be.revertedWithCustomError(token, "ERC721NonexistentToken")
        .withArgs(1n);
    });
  });

  describe("setBaseURI", function () {
    it("setBaseURI makes tokenURI return <baseURI><tokenId> and emits BaseURIUpdated and BatchMetadataUpdate", async function () {
      const { token, admin } = await networkHelpers.loadFixture(mintedFixture);
      const base = "https://meta.example/tokens/";
      await expect(token.connect(admin).setBaseURI(base))
        .to.emit(token, "BaseURIUpdated")
        .withArgs(base)
        .and.to.emit(token, "BatchMetadataUpdate")
        .withArgs(1n, ethers.MaxUint256);
      expect(await token.baseURI()).to.equal(base);
      expect(await token.tokenURI(2n)).to.equal(`${base}2`);
    });

    it("setBaseURI with an empty string restores ipfs:// URIs", async function () {
      const { token, admin } = await networkHelpers.loadFixture(mintedFixture);
      await token.connect(admin).setBaseURI("https://x/");
      await token.connect(admin).setBaseURI("");
      expect(await token.tokenURI(1n)).to.equal(`ipfs://${expectedCidText(CID_A)}`);
    });

    it("setBaseURI reverts with AccessControlUnauthorizedAccount for a non-admin", async function () {
      const { token, alice } = await networkHelpers.loadFixture(mintedFixture);
      await expect(token.connect(alice).setBaseURI("https://x/"))
        .to.be.revertedWithCustomError(token, "AccessControlUnauthorizedAccount")
        .withArgs(alice.address, ethers.ZeroHash);
    });
  });

  shouldBehaveLikeERC721(async () => {
    const { token, alice, bob, carol, others } = await networkHelpers.loadFixture(mintedFixture);
    return {
      ethers,
      token: token as unknown as ERC721Like,
      owner: alice,
      approved: bob,
      operator: carol,
      other: others[0]!,
      firstTokenId: 1n,
      secondTokenId: 2n,
      nonExistentTokenId: 99n,
    };
  });
});
