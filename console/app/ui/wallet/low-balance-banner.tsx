"use client";

import Link from "next/link";
import { api } from "../../lib/api";
import type { WalletAlerts } from "../../lib/types";
import { useResource } from "../../lib/use-resource";
import { Amount } from "../common/amount";

/**
 * The banner every org screen shows while the indexer last read the custodial wallet below the
 * organization's low-balance threshold (`GET /api/enterprise/wallet/alerts`, state `low`): the
 * balance, the threshold and a link to the wallet page. Nothing otherwise, nor while loading.
 */
export function LowBalanceBanner() {
  const alerts = useResource("wallet-alerts", () =>
    api<WalletAlerts>("GET", "/api/enterprise/wallet/alerts"),
  );
  const data = alerts.data;
  if (data === undefined || data.state !== "low") return null;
  return (
    <div className="banner banner-warning" role="status" data-testid="low-balance-banner">
      <strong>Low balance.</strong> The wallet holds{" "}
      {data.balance === null ? "less than" : <Amount value={data.balance} />}, below your alert
      threshold of <Amount value={data.lowBalance} />. Writes fail once it cannot pay a stake and
      gas. <Link href="/wallet/">Fund the wallet</Link>
    </div>
  );
}
