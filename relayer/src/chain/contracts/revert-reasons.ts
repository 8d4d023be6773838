import { id } from "ethers";
import { contractsInterface } from "./bindings.js";

/**
 * API reason strings for the contracts' custom errors. The README ("Contracts") fixes some
 * (`Below min stake`, `Listing not active`); the others read in the same style. TypeChain does
 * not type error names, so test/unit/revert-reasons.test.ts checks every key is one of the
 * compiled contracts' errors (a renamed Solidity error fails it).
 */
export const REVERT_REASONS: Readonly<Record<string, string>> = {
  AssetToken__BelowMinStake: "Below min stake",
  AssetToken__StakeTooLarge: "Stake too large",
  AssetToken__UnknownAssetType: "Asset type not registered",
  AssetToken__InvalidCid: "Invalid CID",
  AssetToken__NotTokenOwner: "Not token owner",
  AssetToken__ZeroAddress: "Zero address",
  AssetToken__StakeTransferFailed: "Stake transfer failed",
  ERC721NonexistentToken: "Token does not exist",
  ERC721IncorrectOwner: "Not token owner",
  ERC721InsufficientApproval: "Not token owner",
  ERC721InvalidReceiver: "Receiver cannot accept ERC-721 tokens",
  ERC721InvalidOwner: "Invalid owner",
  AssetTypeRegistry__EmptyName: "Asset type name is empty",
  AssetTypeRegistry__NameTooLong: "Asset type name too long",
  AssetTypeRegistry__AlreadyRegistered: "Asset type already registered",
  AccessControlUnauthorizedAccount: "Missing registrar role",
  Marketplace__ListingNotActive: "Listing not active",
  Marketplace__PriceAboveMax: "Price above max",
  Marketplace__InsufficientPayment: "Insufficient payment",
  Marketplace__NotSeller: "Not the seller",
  Marketplace__SellerCannotBuy: "Seller cannot buy own listing",
  Marketplace__ZeroPrice: "Price must be above zero",
  Marketplace__InvalidDuration: "Invalid duration",
  Marketplace__UnsupportedToken: "Unsupported token",
  Marketplace__PaymentFailed: "Payment failed",
  Marketplace__InvalidListingData: "Invalid listing data",
  Marketplace__NotExpired: "Listing not expired",
  Marketplace__TokenListed: "Token backs an active listing",
  Marketplace__TokenNotHeld: "Token not held by the marketplace",
  ReentrancyGuardReentrantCall: "Reentrant call",
  // Compliance (docs/contracts.md "Compliance controls"): the same words as the pre-checks
  // (writes/chain-checks.ts COMPLIANCE_REASONS).
  EnforcedPause: "Transfers are paused",
  ExpectedPause: "Transfers are not paused",
  ERC7943InsufficientUnfrozenBalance: "Asset is frozen",
  ERC7943CannotReceive: "Recipient is not allowed to hold this asset type",
  ERC7943CannotSend: "Sender is not allowed to send",
  ERC7943CannotTransfer: "Transfer is not allowed",
  AssetToken__NotHolder: "Not the token's holder",
  AssetToken__InvalidForcedRecipient: "Invalid forced transfer recipient",
  AssetToken__MarketplaceAlreadySet: "Marketplace already set",
  Marketplace__OnlyToken: "Only the token contract may release a listing",
};

/** `AccessControlUnauthorizedAccount`'s reason by the role it names (others: registrar). */
const MISSING_ROLE: Readonly<Record<string, string>> = {
  [id("OPERATOR_ROLE")]: "Missing operator role",
  [id("ENFORCER_ROLE")]: "Missing enforcer role",
  [id("PAUSER_ROLE")]: "Missing pauser role",
};

/**
 * Turns revert data into the reason the API reports after `Transaction failed: `.
 *
 * @param data the revert data (`0x` + selector + args), possibly empty
 * @returns e.g. `Below min stake`; `Error(string)` reasons are returned as is; unknown data as
 *   `execution reverted (0x12345678)`
 * @example
 * revertReason(iface.encodeErrorResult("Marketplace__ListingNotActive", [3n])) // "Listing not active"
 */
export function revertReason(data: string | undefined | null): string {
  if (data === undefined || data === null || data === "0x" || data.length < 10)
    return "execution reverted";
  try {
    const parsed = contractsInterface.parseError(data);
    if (parsed !== null && parsed.name === "Error") return String(parsed.args[0]);
    if (parsed !== null && parsed.name === "Panic")
      return `Panic(0x${(parsed.args[0] as bigint).toString(16)})`;
    if (parsed !== null && parsed.name === "AccessControlUnauthorizedAccount")
      return MISSING_ROLE[String(parsed.args[1])] ?? "Missing registrar role";
    if (parsed !== null) return REVERT_REASONS[parsed.name] ?? parsed.name;
  } catch {
    // fall through to the standard forms
  }
  const selector = data.slice(0, 10).toLowerCase();
  try {
    if (selector === "0x08c379a0") {
      const [reason] = contractsInterface.getAbiCoder().decode(["string"], "0x" + data.slice(10));
      return String(reason);
    }
    if (selector === "0x4e487b71") {
      const [code] = contractsInterface.getAbiCoder().decode(["uint256"], "0x" + data.slice(10));
      return `Panic(0x${(code as bigint).toString(16)})`;
    }
  } catch {
    // malformed standard error
  }
  return `execution reverted (${selector})`;
}
