import { expect } from "chai";
import { network } from "hardhat";
import { DEFAULT_ASSET_TYPES } from "./helpers/asset-types.js";
import { namedSigners } from "./helpers/deploy.js";

const { ethers, networkHelpers } = await network.create();

async function emptyRegistryFixture() {
  const [admin, alice, bob] = await namedSigners(ethers, 3);
  const registry = await ethers.deployContract("AssetTypeRegistry", [admin.address]);
  return { registry, admin, alice, bob };
}

async function defaultRegistryFixture() {
  const system = await emptyRegistryFixture();
  await system.registry.registerTypes(DEFAULT_ASSET_TYPES);
  return system;
}

describe("AssetTypeRegistry", function () {
  it("constructor grants DEFAULT_ADMIN_ROLE and REGISTRAR_ROLE to the admin and registers nothing", async function () {
    const { registry, admin } = await networkHelpers.loadFixture(emptyRegistryFixture);
    expect(await registry.hasRole(ethers.ZeroHash, admin.address)).to.equal(true);
    expect(await registry.hasRole(await registry.REGISTRAR_ROLE(), admin.address)).to.equal(true);
    expect(await registry.REGISTRAR_ROLE()).to.equal(ethers.id("REGISTRAR_ROLE"));
    expect(await registry.MAX_NAME_LENGTH()).to.equal(64n);
    expect(await registry.typeCount()).to.equal(0n);
    expect(await registry.allTypes()).to.deep.equal([]);
  });

  describe("registerType", function () {
    it("registerType stores the name under keccak256 with the next 1-based index and emits AssetTypeRegistered", async function () {
      const { registry, admin } = await networkHelpers.loadFixture(emptyRegistryFixture);
      await expect(registry.registerType("Real Estate"))
        .to.emit(registry, "AssetTypeRegistered")
        .withArgs(ethers.id("Real Estate"), 1, "Real Estate", admin.address);
      await expect(registry.registerType("Bond"))
        .to.emit(registry, "AssetTypeRegistered")
        .withArgs(ethers.id("Bond"), 2, "Bond", admin.address);
      expect(await registry.indexOf(ethers.id("Bond"))).to.equal(2n);
      expect(await registry.typeAt(1n)).to.equal("Real Estate");
      expect(await registry.typeCount()).to.equal(2n);
    });

    it("registerType returns the type id", async function () {
      const { registry } = await networkHelpers.loadFixture(emptyRegistryFixture);
      expect(await registry.registerType.staticCall("Wine")).to.equal(ethers.id("Wine"));
    });

    it("registerType treats names case-sensitively", async function () {
      const { registry } = await networkHelpers.loadFixture(defaultRegistryFixture);
      expect(await registry.isRegistered("Real Estate")).to.equal(true);
      expect(await registry.isRegistered("real estate")).to.equal(false);
      await expect(registry.registerType("real estate")).to.emit(registry, "AssetTypeRegistered");
      expect(await registry.typeCount()).to.equal(30n);
    });

    it("registerType reverts with AlreadyRegistered for an existing name", async function () {
      const { registry } = await networkHelpers.loadFixture(defaultRegistryFixture);
      await expect(registry.registerType("RECEIPT"))
        .to.be.revertedWithCustomError(registry, "AssetTypeRegistry__AlreadyRegistered")
        .withArgs("RECEIPT");
    });

    it("registerType reverts with EmptyName for an empty name", async function () {
      const { registry } = await networkHelpers.loadFixture(emptyRegistryFixture);
      await expect(registry.registerType("")).to.be.revertedWithCustomError(
        registry,
        "AssetTypeRegistry__EmptyName",
      );
    });

    it("registerType accepts 64 bytes and reverts with NameTooLong at 65 bytes", async function () {
      const { registry } = await networkHelpers.loadFixture(emptyRegistryFixture);
      await expect(registry.registerType("x".repeat(64))).to.emit(registry, "AssetTypeRegistered");
      await expect(registry.registerType("y".repeat(65)))
        .to.be.revertedWithCustomError(registry, "AssetTypeRegistry__NameTooLong")
        .withArgs(65n, 64n);
    });

    it("registerType measures the length in UTF-8 bytes, not characters", async function () {
      const { registry } = await networkHelpers.loadFixture(emptyRegistryFixture);
      const name = "é".repeat(33); // 66 bytes, 33 characters
      await expect(registry.registerType(name))
        .to.be.revertedWithCustomError(registry, "AssetTypeRegistry__NameTooLong")
        .withArgs(66n, 64n);
    });

    it("registerType reverts with AccessControlUnauthorizedAccount without REGISTRAR_ROLE", async function () {
      const { registry, alice } = await networkHelpers.loadFixture(emptyRegistryFixture);
      await expect(registry.connect(alice).registerType("Yacht"))
        .to.be.revertedWithCustomError(registry, "AccessControlUnauthorizedAccount")
        .withArgs(alice.address, await registry.REGISTRAR_ROLE());
    });

    it("registerType works for an account the admin grants REGISTRAR_ROLE", async function () {
      const { registry, alice } = await networkHelpers.loadFixture(emptyRegistryFixture);
      await registry.grantRole(await registry.REGISTRAR_ROLE(), alice.address);
      await expect(registry.connect(alice).registerType("Yacht"))
        .to.emit(registry, "AssetTypeRegistered")
        .withArgs(ethers.id("Yacht"), 1, "Yacht", alice.address);
    });
  });

  describe("registerTypes", function () {
    it("registerTypes registers the 29 default types in order", async function () {
      const { registry } = await networkHelpers.loadFixture(defaultRegistryFixture);
      expect(await registry.typeCount()).to.equal(29n);
      expect(await registry.allTypes()).to.deep.equal(DEFAULT_ASSET_TYPES);
      for (const [i, name] of DEFAULT_ASSET_TYPES.entries()) {
        expect(await registry.indexOf(ethers.id(name))).to.equal(BigInt(i + 1));
        expect(await registry.typeAt(BigInt(i + 1))).to.equal(name);
      }
    });

    it("registerTypes is atomic: a duplicate inside the batch reverts the whole batch", async function () {
      const { registry } = await networkHelpers.loadFixture(emptyRegistryFixture);
      await expect(registry.registerTypes(["A", "B", "A"]))
        .to.be.revertedWithCustomError(registry, "AssetTypeRegistry__AlreadyRegistered")
        .withArgs("A");
      expect(await registry.typeCount()).to.equal(0n);
    });

    it("registerTypes reverts with EmptyName and NameTooLong like registerType", async function () {
      const { registry } = await networkHelpers.loadFixture(emptyRegistryFixture);
      await expect(registry.registerTypes(["A", ""])).to.be.revertedWithCustomError(
        registry,
        "AssetTypeRegistry__EmptyName",
      );
      await expect(registry.registerTypes(["z".repeat(100)]))
        .to.be.revertedWithCustomError(registry, "AssetTypeRegistry__NameTooLong")
        .withArgs(100n, 64n);
    });

    it("registerTypes reverts with AccessControlUnauthorizedAccount without REGISTRAR_ROLE", async function () {
      const { registry, bob } = await networkHelpers.loadFixture(emptyRegistryFixture);
      await expect(registry.connect(bob).registerTypes(["A"]))
        .to.be.revertedWithCustomError(registry, "AccessControlUnauthorizedAccount")
        .withArgs(bob.address, await registry.REGISTRAR_ROLE());
    });

    it("registerTypes with an empty list does nothing", async function () {
      const { registry } = await networkHelpers.loadFixture(emptyRegistryFixture);
      await expect(registry.registerTypes([])).not.to.emit(registry, "AssetTypeRegistered");
    });
  });

  describe("views", function () {
    it("indexOf returns 0 and isRegistered false for an unknown type", async function () {
      const { registry } = await networkHelpers.loadFixture(defaultRegistryFixture);
      expect(await registry.indexOf(ethers.id("Spaceship"))).to.equal(0n);
      expect(await registry.isRegistered("Spaceship")).to.equal(false);
    });

    it("typeAt reverts with IndexOutOfRange for 0 and for typeCount() + 1", async function () {
      const { registry } = await networkHelpers.loadFixture(defaultRegistryFixture);
      await expect(registry.typeAt(0n))
        .to.be.revertedWithCustomError(registry, "AssetTypeRegistry__IndexOutOfRange")
        .withArgs(0n);
      await expect(registry.typeAt(30n))
        .to.be.revertedWithCustomError(registry, "AssetTypeRegistry__IndexOutOfRange")
        .withArgs(30n);
    });
  });
});
