import type { LeasedWallet } from "./tx-store.js";
import { isSentRow, type TxRow } from "./tx-rows.js";
import type { SerialLoop } from "./serial-loop.js";

/** A wallet this process sequences (holds the lease of). */
export interface WalletState {
  wallet: LeasedWallet;
  /** Live rows as of the last step, by id. */
  rows: Map<string, TxRow>;
  loop: SerialLoop;
  /** Set on lease takeover: broadcast again what a dead process may never have sent. */
  fresh: boolean;
  /** When the nonces were last compared with the chain (ms). */
  lastCheck: number;
  /** Rows whose fee cap was reported (logged once). */
  capLogged: Set<string>;
  /** Rows left open because the wallet's gap fills were used up (counted and logged once). */
  unfilled: Set<string>;
  /** When this process last broadcast each open row (ms); absent: not since it was loaded. */
  broadcastAt: Map<string, number>;
  /**
   * The chain's head when this process first saw each sent row out (sent by it, loaded, or
   * reopened by a reorg): the blocks it has waited since (`blockStuckReason`).
   */
  openSince: Map<string, number>;
  /** Since when the last step found no live row (ms); the lease goes back after `idleReleaseMs`. */
  idleSince: number | undefined;
}

/**
 * The wallets this process leases and the index of every attempt hash of their sent rows, kept
 * together so the index cannot drift from the rows: rows enter and leave only through `load`,
 * `noteAttempt` and `drop`.
 */
export class WalletBook {
  readonly #wallets = new Map<string, WalletState>();
  readonly #hashes = new Map<string, { walletId: string; rowId: string }>();

  get(walletId: string): WalletState | undefined {
    return this.#wallets.get(walletId);
  }

  has(walletId: string): boolean {
    return this.#wallets.has(walletId);
  }

  ids(): string[] {
    return [...this.#wallets.keys()];
  }

  states(): WalletState[] {
    return [...this.#wallets.values()];
  }

  /** Whether any sent row is waiting for a receipt. */
  get tracking(): boolean {
    return this.#hashes.size > 0;
  }

  add(state: WalletState): void {
    this.#wallets.set(state.wallet.id, state);
  }

  /** Forgets a wallet and its rows' hashes (lease lost or given back). */
  forget(walletId: string): void {
    const state = this.#wallets.get(walletId);
    if (state === undefined) return;
    for (const row of state.rows.values()) this.#unindex(row);
    this.#wallets.delete(walletId);
  }

  /** Replaces a wallet's rows with `rows` (read from the store) and indexes their attempts. */
  load(state: WalletState, rows: readonly TxRow[]): void {
    for (const row of state.rows.values()) this.#unindex(row);
    state.rows = new Map(rows.map((r) => [r.id, r]));
    for (const row of rows) this.#index(state, row);
    for (const id of state.broadcastAt.keys())
      if (!state.rows.has(id)) state.broadcastAt.delete(id);
    for (const id of state.openSince.keys()) {
      const row = state.rows.get(id);
      if (row === undefined || !isSentRow(row)) state.openSince.delete(id);
    }
  }

  /** Indexes a row of `state` whose attempts changed (sent, re-priced). */
  noteRow(state: WalletState, row: TxRow): void {
    state.rows.set(row.id, row);
    this.#index(state, row);
    if (!isSentRow(row)) state.openSince.delete(row.id);
  }

  /** Drops a row that is final or no longer sent, with its hashes. */
  drop(state: WalletState, rowId: string): TxRow | undefined {
    const row = state.rows.get(rowId);
    if (row === undefined) return undefined;
    this.#unindex(row);
    state.rows.delete(rowId);
    state.broadcastAt.delete(rowId);
    state.openSince.delete(rowId);
    return row;
  }

  /** The leased wallet and sent row an attempt hash belongs to. */
  find(hash: string): { state: WalletState; row: TxRow } | undefined {
    const entry = this.#hashes.get(hash.toLowerCase());
    if (entry === undefined) return undefined;
    const state = this.#wallets.get(entry.walletId);
    const row = state?.rows.get(entry.rowId);
    return state === undefined || row === undefined || !isSentRow(row) ? undefined : { state, row };
  }

  #index(state: WalletState, row: TxRow): void {
    if (!isSentRow(row)) return;
    for (const a of row.attempts)
      if (a.superseded === undefined)
        this.#hashes.set(a.hash.toLowerCase(), { walletId: state.wallet.id, rowId: row.id });
  }

  #unindex(row: TxRow): void {
    for (const a of row.attempts) {
      const entry = this.#hashes.get(a.hash.toLowerCase());
      if (entry?.rowId === row.id) this.#hashes.delete(a.hash.toLowerCase());
    }
  }
}
