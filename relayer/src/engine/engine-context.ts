import type { Logger } from "pino";
import type { Counter } from "prom-client";
import type { BlockWatcher } from "../chain/block-watcher.js";
import type { ContractAddresses } from "../chain/contracts/bindings.js";
import type { FeeOracle } from "./fee-oracle.js";
import type { GasBook } from "./gas-book.js";
import type { LeasedTxWrites } from "./leased-tx-writes.js";
import type { RpcClient } from "../chain/rpc/rpc-client.js";
import type { TxNotifier } from "./tx-notifier.js";
import type { TxStore } from "./tx-store.js";
import type { SignerBackend } from "../wallets/signer-backend.js";
import type { WalletBook, WalletState } from "./wallet-book.js";

/** Tuning of the engine (defaults suit a 1 s block chain). */
export interface SequencerOptions {
  /** Wallet lease length; renewed every `claimIntervalMs`. Default 15 s. */
  leaseMs: number;
  /** How often to look for wallets with work and renew leases. Default 1 s. */
  claimIntervalMs: number;
  /**
   * A wallet whose queue is empty keeps its lease this long before it is given back. Default
   * 3 s: a queue that empties and refills between blocks is not released and claimed again
   * each time (two statements and two commits per round trip of the queue).
   */
  idleReleaseMs: number;
  /** Re-price a transaction not mined after this long. Default 15 s. */
  stuckAfterMs: number;
  /** How often a wallet with sent transactions compares its nonces with the chain. Default 1 s. */
  checkIntervalMs: number;
  /** Send an open transaction's bytes again when not broadcast for this long. Default 5 s. */
  rebroadcastMs: number;
  /** Gas margin over `eth_estimateGas`, in percent. Default 25. */
  gasMarginPercent: number;
  /** Write operations one organization may have on the chain at once (a batch is one). */
  maxInFlightPerOrg: number;
  /** Gap fills allowed per wallet per hour; past it the wallet waits for an operator. Default 20. */
  maxFillsPerHour: number;
  /** Operator ceiling on maxFeePerGas (`MAX_FEE_PER_GAS_GWEI`), in wei. */
  maxFeePerGasWei: bigint | undefined;
  /** Blocks above a write's block before it is `confirmed` (`CONFIRMATIONS`). Default 0. */
  confirmations: number;
  /**
   * Blocks a sent write may go unmined before it is marked stuck (`not-mined`, or `nonce-gap`
   * when a lower nonce holds it; `STUCK_AFTER_BLOCKS`). 0: never. Default 20.
   */
  stuckAfterBlocks: number;
}

export const DEFAULT_SEQUENCER_OPTIONS: SequencerOptions = {
  leaseMs: 15_000,
  claimIntervalMs: 1_000,
  idleReleaseMs: 3_000,
  stuckAfterMs: 15_000,
  checkIntervalMs: 1_000,
  rebroadcastMs: 5_000,
  gasMarginPercent: 25,
  maxInFlightPerOrg: 10,
  maxFillsPerHour: 20,
  maxFeePerGasWei: undefined,
  confirmations: 0,
  stuckAfterBlocks: 20,
};

/** What the engine is built from. */
export interface SequencerDeps {
  store: TxStore;
  rpc: RpcClient;
  fees: FeeOracle;
  signers: SignerBackend;
  logger: Logger;
  contracts: ContractAddresses;
  chainId: number;
  /** Identifies this process in wallet leases. */
  owner: string;
  blocks: BlockWatcher;
  notifier: TxNotifier;
  /** Gas figures learned from receipts, per write kind and call shape. */
  gas: GasBook;
}

/**
 * What the engine's modules share: its dependencies, the lease-checked writes, the wallets it
 * leases, and the two things every module may ask of the scheduler.
 */
export interface EngineContext {
  readonly d: SequencerDeps;
  readonly options: SequencerOptions;
  readonly writes: LeasedTxWrites;
  readonly book: WalletBook;
  readonly fillCounter: Counter<"reason">;
  /**
   * Re-pricings of stuck transactions by outcome: `bumped`, or `at-cap` (the fee market is above
   * what the write reserved; it is sent again unchanged and waits for the base fee to fall).
   */
  readonly repriceCounter: Counter<"outcome">;
  /** Writes marked stuck, by reason (`rwa_tx_stuck_total`). */
  readonly stuckCounter: Counter<"reason">;
  /** Gap-fill times of the last hour by wallet (the cap holds across idle spells). */
  readonly fills: Map<string, number[]>;
  /** What the node said about `eth_getBlockReceipts`: when it was found missing, if it was. */
  readonly blockReceipts: { unsupportedSince: number | undefined };
  /** Runs the wallet's step now or once more (new work, freed slots). */
  kick(walletId: string): void;
  /** Local bookkeeping once rows are final: drop them, end groups, wake waiters and the wallet. */
  afterFinal(state: WalletState, ended: readonly string[], touched: readonly string[]): void;
}
