"use client";

import { api } from "../../lib/api";
import { assetsCovered, groupDigits } from "../../lib/format";
import type { WalletBalance } from "../../lib/types";
import { useResource } from "../../lib/use-resource";
import { Amount } from "../common/amount";
import { CopyButton } from "../common/copy-button";
import { ErrorState, Loading } from "../common/states";

/** The org's custodial wallet: address, balance (coin and wei) and what it can pay for. */
export function WalletPanel() {
  const wallet = useResource("wallet", () => api<WalletBalance>("GET", "/api/enterprise/wallet"));
  if (wallet.loading && wallet.data === undefined) return <Loading label="Reading the balance…" />;
  if (wallet.error !== undefined)
    return <ErrorState message={wallet.error} onRetry={wallet.reload} />;
  if (wallet.data === undefined) return null;
  const { walletAddress, balance, balanceWei, chain } = wallet.data;
  const covered = assetsCovered(balanceWei);
  return (
    <div className="stack">
      <section className="card">
        <h2>Custodial wallet</h2>
        <div className="address-row">
          <code className="address" data-testid="wallet-address">
            {walletAddress}
          </code>
          <CopyButton value={walletAddress} label="Copy address" />
        </div>
        <p className="muted">
          Chain {chain}. The service signs every transaction from this wallet.
        </p>
      </section>
      <section className="card">
        <h2>Balance</h2>
        <p className="figure">
          <Amount value={balance} testId="wallet-balance" />{" "}
          <CopyButton value={balance} label="Copy exact balance" compact />
        </p>
        <p className="muted" data-testid="wallet-balance-wei">
          {groupDigits(balanceWei)} wei
        </p>
        <button type="button" className="button button-small" onClick={wallet.reload}>
          {wallet.loading ? "Refreshing…" : "Refresh"}
        </button>
      </section>
      <section className="card">
        <h2>Funding</h2>
        <p>
          Each issued asset stakes at least 0.1 COIN and pays about 0.001 COIN of gas: budget{" "}
          <strong>about 0.15 COIN per asset</strong>.
        </p>
        <p data-testid="wallet-covers">
          {covered === 0n
            ? "The balance does not cover one asset yet. Send COIN to the address above."
            : `The balance covers about ${covered.toString()} asset${covered === 1n ? "" : "s"}.`}
        </p>
      </section>
    </div>
  );
}
