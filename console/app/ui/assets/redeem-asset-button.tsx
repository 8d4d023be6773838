"use client";

import { useState } from "react";
import { api, messageOf } from "../../lib/api";
import type { AssetRecord } from "../../lib/types";

/**
 * Row action: redeems (burns) an asset of the organization; its stake returns to the wallet.
 * Asks for the asset's password when it has one, and confirms first: redeeming cannot be undone.
 */
export function RedeemAssetButton({
  asset,
  onDone,
}: {
  asset: AssetRecord;
  onDone: (message: { kind: "ok" | "error"; text: string }) => void;
}) {
  const [busy, setBusy] = useState(false);
  if (asset.redeemed || asset.listing !== null) return null;

  const redeem = async () => {
    let password: string | undefined;
    if (asset.hasPassword) {
      const given = window.prompt(`Password of asset #${asset.tokenId}`);
      if (given === null) return;
      password = given;
    } else if (
      !window.confirm(`Redeem asset #${asset.tokenId}? The token is burnt; this cannot be undone.`)
    ) {
      return;
    }
    setBusy(true);
    try {
      const done = await api<{ stakeReturned: string }>("POST", "/api/v1/write/redeem-asset", {
        tokenId: asset.tokenId,
        ...(password === undefined ? {} : { password }),
      });
      onDone({
        kind: "ok",
        text: `Asset #${asset.tokenId} redeemed; ${done.stakeReturned} COIN returned to the wallet.`,
      });
    } catch (error) {
      onDone({ kind: "error", text: messageOf(error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <button
      type="button"
      className="button button-small"
      disabled={busy}
      onClick={() => void redeem()}
    >
      {busy ? "Redeeming…" : "Redeem"}
    </button>
  );
}
