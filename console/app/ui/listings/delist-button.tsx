"use client";

import { useState } from "react";
import { api, messageOf } from "../../lib/api";
import type { ListingRecord } from "../../lib/types";

/**
 * Row action on the organization's own listings: "Delist" cancels an active listing; "Reclaim"
 * takes the token of an expired listing back from escrow (the same endpoint does both).
 */
export function DelistButton({
  listing,
  onDone,
}: {
  listing: ListingRecord;
  onDone: (message: { kind: "ok" | "error"; text: string }) => void;
}) {
  const [busy, setBusy] = useState(false);
  if (listing.state !== "active" && listing.state !== "expired") return null;
  const label = listing.state === "active" ? "Delist" : "Reclaim";

  const run = async () => {
    setBusy(true);
    try {
      const done = await api<{ reason: string }>("POST", "/api/v1/write/marketplace/delist", {
        listingId: listing.listingId,
      });
      onDone({
        kind: "ok",
        text:
          done.reason === "expired"
            ? `Token #${listing.tokenId} of expired listing #${listing.listingId} is back in the wallet.`
            : `Listing #${listing.listingId} cancelled; token #${listing.tokenId} is back in the wallet.`,
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
      onClick={() => void run()}
    >
      {busy ? `${label}…` : label}
    </button>
  );
}
