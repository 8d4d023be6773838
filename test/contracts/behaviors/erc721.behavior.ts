import { expect } from "chai";
import { anyValue } from "@nomicfoundation/hardhat-ethers-chai-matchers/withArgs";
import type { HardhatEthers, HardhatEthersSigner } from "@nomicfoundation/hardhat-ethers/types";
import type { BaseContract } from "ethers";

// Results are compared with chai, so the loose return type is deliberate.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Method = (...args: any[]) => Promise<any>;

/** The ERC-721 surface the suite drives; any typechain ERC-721 contract fits after a cast. */
export type ERC721Like = Omit<BaseContract, "connect"> & {
  connect(runner: HardhatEthersSigner): ERC721Like;
  getFunction(signature: string): Method;
  balanceOf: Method;
  ownerOf: Method;
  approve: Method;
  getApproved: Method;
  setApprovalForAll: Method;
  isApprovedForAll: Method;
  transferFrom: Method;
  supportsInterface: Method;
};

/** What the shared ERC-721 suite needs from the token under test. */
export interface ERC721Context {
  ethers: HardhatEthers;
  token: ERC721Like;
  owner: HardhatEthersSigner;
  approved: HardhatEthersSigner;
  operator: HardhatEthersSigner;
  other: HardhatEthersSigner;
  /** Two tokens owned by `owner`. */
  firstTokenId: bigint;
  secondTokenId: bigint;
  /** An id that does not exist. */
  nonExistentTokenId: bigint;
}

const RECEIVER_MAGIC_VALUE = "0x150b7a02";
const RevertType = {
  None: 0,
  RevertWithoutMessage: 1,
  RevertWithMessage: 2,
  RevertWithCustomError: 3,
  Panic: 4,
};

/**
 * OpenZeppelin-style ERC-721 behaviour suite (balances, ownership, transfers, safe transfers to
 * every kind of receiver, approvals, operators, events, ERC-165). `load` returns a fresh context,
 * normally through `loadFixture`.
 */
export function shouldBehaveLikeERC721(load: () => Promise<ERC721Context>): void {
  describe("ERC-721 behaviour", function () {
    let ctx: ERC721Context;

    beforeEach(async function () {
      ctx = await load();
    });

    describe("balanceOf", function () {
      it("balanceOf returns the number of tokens an owner holds", async function () {
        expect(await ctx.token.balanceOf(ctx.owner.address)).to.equal(2n);
      });

      it("balanceOf returns zero for an account without tokens", async function () {
        expect(await ctx.token.balanceOf(ctx.other.address)).to.equal(0n);
      });

      it("balanceOf reverts with ERC721InvalidOwner for the zero address", async function () {
        await expect(ctx.token.balanceOf(ctx.ethers.ZeroAddress))
          .to.be.revertedWithCustomError(ctx.token, "ERC721InvalidOwner")
          .withArgs(ctx.ethers.ZeroAddress);
      });
    });

    describe("ownerOf", function () {
      it("ownerOf returns the owner of an existing token", async function () {
        expect(await ctx.token.ownerOf(ctx.firstTokenId)).to.equal(ctx.owner.address);
      });
    });

    /** Expects `call` to revert with ERC721NonexistentToken(nonExistentTokenId). */
    async function expectNonexistent(call: Promise<unknown>) {
      await expect(call)
        .to.be.revertedWithCustomError(ctx.token, "ERC721NonexistentToken")
        .withArgs(ctx.nonExistentTokenId);
    }

    describe("unknown ids", function () {
      for (const [name, call] of <Array<[string, (c: ERC721Context) => Promise<unknown>]>>[
        ["ownerOf", (c) => c.token.ownerOf(c.nonExistentTokenId)],
        ["getApproved", (c) => c.token.getApproved(c.nonExistentTokenId)],
        [
          "approve",
          (c) => c.token.connect(c.owner).approve(c.approved.address, c.nonExistentTokenId),
        ],
      ]) {
        it(`${name} reverts with ERC721NonexistentToken for an unknown id`, async function () {
          await expectNonexistent(call(ctx));
        });
      }
    });

    describe("transfers", function () {
      const data = "0x42";

      beforeEach(async function () {
        await ctx.token.connect(ctx.owner).approve(ctx.approved.address, ctx.firstTokenId);
        await ctx.token.connect(ctx.owner).setApprovalForAll(ctx.operator.address, true);
      });

      type TransferFn = (
        from: string,
        to: string,
        tokenId: bigint,
        signer: HardhatEthersSigner,
      ) => Promise<unknown>;

      /** A transfer through the function `signature`, with `extra` arguments after the id. */
      const via =
        (signature: string, ...extra: string[]) =>
        (c: ERC721Context): TransferFn =>
        (from, to, id, signer) =>
          c.token.connect(signer).getFunction(signature)(from, to, id, ...extra);
      const safeWithoutData = via("safeTransferFrom(address,address,uint256)");
      const safeWithData = via("safeTransferFrom(address,address,uint256,bytes)", data);

      const transferVariants: Array<[string, (c: ERC721Context) => TransferFn]> = [
        ["transferFrom", via("transferFrom")],
        ["safeTransferFrom without data", safeWithoutData],
        ["safeTransferFrom with data", safeWithData],
      ];

      for (const [name, make] of transferVariants) {
        describe(name, function () {
          let transfer: TransferFn;
          beforeEach(function () {
            transfer = make(ctx);
          });

          for (const [who, pick] of [
            ["the owner", (c: ERC721Context) => c.owner],
            ["the approved account", (c: ERC721Context) => c.approved],
            ["an operator", (c: ERC721Context) => c.operator],
          ] as const) {
            it(`${name} by ${who} moves ownership, balances and clears the approval`, async function () {
              const tx = transfer(
                ctx.owner.address,
                ctx.other.address,
                ctx.firstTokenId,
                pick(ctx),
              );
              await expect(tx)
                .to.emit(ctx.token, "Transfer")
                .withArgs(ctx.owner.address, ctx.other.address, ctx.firstTokenId);
              expect(await ctx.token.ownerOf(ctx.firstTokenId)).to.equal(ctx.other.address);
              expect(await ctx.token.balanceOf(ctx.owner.address)).to.equal(1n);
              expect(await ctx.token.balanceOf(ctx.other.address)).to.equal(1n);
              expect(await ctx.token.getApproved(ctx.firstTokenId)).to.equal(
                ctx.ethers.ZeroAddress,
              );
            });
          }

          it(`${name} to the owner itself keeps ownership and balance`, async function () {
            await expect(
              transfer(ctx.owner.address, ctx.owner.address, ctx.firstTokenId, ctx.owner),
            )
              .to.emit(ctx.token, "Transfer")
              .withArgs(ctx.owner.address, ctx.owner.address, ctx.firstTokenId);
            expect(await ctx.token.ownerOf(ctx.firstTokenId)).to.equal(ctx.owner.address);
            expect(await ctx.token.balanceOf(ctx.owner.address)).to.equal(2n);
          });

          it(`${name} reverts with ERC721IncorrectOwner when from is not the owner`, async function () {
            await expect(
              transfer(ctx.other.address, ctx.other.address, ctx.firstTokenId, ctx.owner),
            )
              .to.be.revertedWithCustomError(ctx.token, "ERC721IncorrectOwner")
              .withArgs(ctx.other.address, ctx.firstTokenId, ctx.owner.address);
          });

          it(`${name} reverts with ERC721InsufficientApproval when the sender is not authorized`, async function () {
            await expect(
              transfer(ctx.owner.address, ctx.other.address, ctx.firstTokenId, ctx.other),
            )
              .to.be.revertedWithCustomError(ctx.token, "ERC721InsufficientApproval")
              .withArgs(ctx.other.address, ctx.firstTokenId);
          });

          it(`${name} reverts with ERC721NonexistentToken for an unknown id`, async function () {
            await expectNonexistent(
              transfer(ctx.owner.address, ctx.other.address, ctx.nonExistentTokenId, ctx.owner),
            );
          });

          it(`${name} reverts with ERC721InvalidReceiver when sending to the zero address`, async function () {
            await expect(
              transfer(ctx.owner.address, ctx.ethers.ZeroAddress, ctx.firstTokenId, ctx.owner),
            )
              .to.be.revertedWithCustomError(ctx.token, "ERC721InvalidReceiver")
              .withArgs(ctx.ethers.ZeroAddress);
          });
        });
      }

      describe("safeTransferFrom to contracts", function () {
        async function receiver(retval: string, error: number) {
          return ctx.ethers.deployContract("ERC721ReceiverMock", [retval, error]);
        }

        for (const withData of [false, true]) {
          const label = withData ? "with data" : "without data";
          const send = (to: string, signer: HardhatEthersSigner = ctx.owner) =>
            (withData ? safeWithData : safeWithoutData)(ctx)(
              ctx.owner.address,
              to,
              ctx.firstTokenId,
              signer,
            );

          it(`safeTransferFrom ${label} to an accepting receiver calls onERC721Received with operator, from, id and data`, async function () {
            const mock = await receiver(RECEIVER_MAGIC_VALUE, RevertType.None);
            await expect(send(await mock.getAddress(), ctx.approved))
              .to.emit(mock, "Received")
              .withArgs(
                ctx.approved.address,
                ctx.owner.address,
                ctx.firstTokenId,
                withData ? data : "0x",
                anyValue,
              );
            expect(await ctx.token.ownerOf(ctx.firstTokenId)).to.equal(await mock.getAddress());
          });

          it(`safeTransferFrom ${label} reverts with ERC721InvalidReceiver when the receiver returns a wrong value`, async function () {
            const mock = await receiver("0x00000042", RevertType.None);
            await expect(send(await mock.getAddress()))
              .to.be.revertedWithCustomError(ctx.token, "ERC721InvalidReceiver")
              .withArgs(await mock.getAddress());
          });

          it(`safeTransferFrom ${label} reverts with ERC721InvalidReceiver when the receiver reverts without a reason`, async function () {
            const mock = await receiver(RECEIVER_MAGIC_VALUE, RevertType.RevertWithoutMessage);
            await expect(send(await mock.getAddress()))
              .to.be.revertedWithCustomError(ctx.token, "ERC721InvalidReceiver")
              .withArgs(await mock.getAddress());
          });

          it(`safeTransferFrom ${label} bubbles up the receiver's revert reason`, async function () {
            const mock = await receiver(RECEIVER_MAGIC_VALUE, RevertType.RevertWithMessage);
            await expect(send(await mock.getAddress())).to.be.revertedWith(
              "ERC721ReceiverMock: reverting",
            );
          });

          it(`safeTransferFrom ${label} bubbles up the receiver's custom error`, async function () {
            const mock = await receiver(RECEIVER_MAGIC_VALUE, RevertType.RevertWithCustomError);
            await expect(send(await mock.getAddress()))
              .to.be.revertedWithCustomError(mock, "CustomError")
              .withArgs(RECEIVER_MAGIC_VALUE);
          });

          it(`safeTransferFrom ${label} bubbles up a panic in the receiver`, async function () {
            const mock = await receiver(RECEIVER_MAGIC_VALUE, RevertType.Panic);
            await expect(send(await mock.getAddress())).to.be.revertedWithPanic(0x12);
          });

          it(`safeTransferFrom ${label} reverts with ERC721InvalidReceiver for a contract that is not a receiver`, async function () {
            const nonReceiver = await ctx.ethers.deployContract("NonReceiverMock");
            await expect(send(await nonReceiver.getAddress()))
              .to.be.revertedWithCustomError(ctx.token, "ERC721InvalidReceiver")
              .withArgs(await nonReceiver.getAddress());
          });
        }

        it("transferFrom to a contract that is not a receiver succeeds (no receiver check)", async function () {
          const nonReceiver = await ctx.ethers.deployContract("NonReceiverMock");
          await ctx.token
            .connect(ctx.owner)
            .transferFrom(ctx.owner.address, await nonReceiver.getAddress(), ctx.firstTokenId);
          expect(await ctx.token.ownerOf(ctx.firstTokenId)).to.equal(
            await nonReceiver.getAddress(),
          );
        });
      });
    });

    describe("approve", function () {
      it("approve sets the approved account and emits Approval", async function () {
        await expect(ctx.token.connect(ctx.owner).approve(ctx.approved.address, ctx.firstTokenId))
          .to.emit(ctx.token, "Approval")
          .withArgs(ctx.owner.address, ctx.approved.address, ctx.firstTokenId);
        expect(await ctx.token.getApproved(ctx.firstTokenId)).to.equal(ctx.approved.address);
      });

      it("approve with the zero address clears a previous approval", async function () {
        await ctx.token.connect(ctx.owner).approve(ctx.approved.address, ctx.firstTokenId);
        await expect(ctx.token.connect(ctx.owner).approve(ctx.ethers.ZeroAddress, ctx.firstTokenId))
          .to.emit(ctx.token, "Approval")
          .withArgs(ctx.owner.address, ctx.ethers.ZeroAddress, ctx.firstTokenId);
        expect(await ctx.token.getApproved(ctx.firstTokenId)).to.equal(ctx.ethers.ZeroAddress);
      });

      it("approve by an operator sets the approval on the owner's behalf", async function () {
        await ctx.token.connect(ctx.owner).setApprovalForAll(ctx.operator.address, true);
        await expect(
          ctx.token.connect(ctx.operator).approve(ctx.approved.address, ctx.firstTokenId),
        )
          .to.emit(ctx.token, "Approval")
          .withArgs(ctx.owner.address, ctx.approved.address, ctx.firstTokenId);
        expect(await ctx.token.getApproved(ctx.firstTokenId)).to.equal(ctx.approved.address);
      });

      it("approve reverts with ERC721InvalidApprover when the sender is neither owner nor operator", async function () {
        await expect(ctx.token.connect(ctx.other).approve(ctx.approved.address, ctx.firstTokenId))
          .to.be.revertedWithCustomError(ctx.token, "ERC721InvalidApprover")
          .withArgs(ctx.other.address);
      });

      it("approve reverts with ERC721InvalidApprover when the approved account tries to approve", async function () {
        await ctx.token.connect(ctx.owner).approve(ctx.approved.address, ctx.firstTokenId);
        await expect(ctx.token.connect(ctx.approved).approve(ctx.other.address, ctx.firstTokenId))
          .to.be.revertedWithCustomError(ctx.token, "ERC721InvalidApprover")
          .withArgs(ctx.approved.address);
      });

      it("getApproved returns the zero address when nothing is approved", async function () {
        expect(await ctx.token.getApproved(ctx.secondTokenId)).to.equal(ctx.ethers.ZeroAddress);
      });
    });

    describe("setApprovalForAll", function () {
      /** The owner sets the operator to `approved`: the event says so and the getter reads it. */
      async function expectOperatorSet(approved: boolean) {
        const { token, owner, operator } = ctx;
        await expect(token.connect(owner).setApprovalForAll(operator.address, approved))
          .to.emit(token, "ApprovalForAll")
          .withArgs(owner.address, operator.address, approved);
        expect(await token.isApprovedForAll(owner.address, operator.address)).to.equal(approved);
      }

      it("setApprovalForAll approves an operator and emits ApprovalForAll", async function () {
        await expectOperatorSet(true);
      });

      it("setApprovalForAll with false revokes an operator", async function () {
        await ctx.token.connect(ctx.owner).setApprovalForAll(ctx.operator.address, true);
        await expectOperatorSet(false);
      });

      it("setApprovalForAll reverts with ERC721InvalidOperator for the zero address", async function () {
        await expect(ctx.token.connect(ctx.owner).setApprovalForAll(ctx.ethers.ZeroAddress, true))
          .to.be.revertedWithCustomError(ctx.token, "ERC721InvalidOperator")
          .withArgs(ctx.ethers.ZeroAddress);
      });

      it("a revoked operator can no longer transfer", async function () {
        await ctx.token.connect(ctx.owner).setApprovalForAll(ctx.operator.address, true);
        await ctx.token.connect(ctx.owner).setApprovalForAll(ctx.operator.address, false);
        await expect(
          ctx.token
            .connect(ctx.operator)
            .transferFrom(ctx.owner.address, ctx.other.address, ctx.firstTokenId),
        )
          .to.be.revertedWithCustomError(ctx.token, "ERC721InsufficientApproval")
          .withArgs(ctx.operator.address, ctx.firstTokenId);
      });
    });

    describe("ERC-165", function () {
      for (const [name, id] of [
        ["ERC-165", "0x01ffc9a7"],
        ["ERC-721", "0x80ac58cd"],
        ["ERC-721 Metadata", "0x5b5e139f"],
      ]) {
        it(`supportsInterface returns true for ${name}`, async function () {
          expect(await ctx.token.supportsInterface(id)).to.equal(true);
        });
      }

      it("supportsInterface returns false for 0xffffffff", async function () {
        expect(await ctx.token.supportsInterface("0xffffffff")).to.equal(false);
      });
    });
  });
}
