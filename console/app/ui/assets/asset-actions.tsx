"use client";

import {
  listAssetSchema,
  noFieldsSchema,
  redeemAssetSchema,
  transferAssetSchema,
} from "../../lib/schemas";
import { priceOf, sameAddress } from "../../lib/format";
import type { AssetDetail, ListingRecord } from "../../lib/types";
import { useWrite } from "../../lib/use-write";
import { TxProgress } from "../actions/tx-progress";
import { WriteAction } from "../actions/write-action";

/**
 * The actions that fit the asset's state for this organization: list, transfer or redeem what its
 * wallet holds, delist its own listing (reclaim it once expired), buy another seller's listing.
 */
export function AssetActions({
  asset,
  listing,
  wallet,
  onSettled,
}: {
  asset: AssetDetail;
  listing: ListingRecord | undefined;
  wallet: string | null;
  onSettled: () => void;
}) {
  const write = useWrite(onSettled);
  const id = asset.tokenId;
  const owned = sameAddress(asset.owner, wallet);
  const mine = listing !== undefined && sameAddress(listing.seller, wallet);
  if (asset.redeemed) return <p className="muted">Redeemed: no actions.</p>;
  return (
    <>
      <div className="actions">
        {owned && asset.listing === null && (
          <>
            <WriteAction
              label="List for sale"
              fields={[
                {
                  name: "priceInCOIN",
                  label: "Price (COIN)",
                  inputMode: "decimal",
                  placeholder: "1.5",
                },
                { name: "durationDays", label: "Days", inputMode: "numeric", initial: "30" },
              ]}
              schema={listAssetSchema}
              question={(v) =>
                `List token #${id} for ${v.priceInCOIN} COIN for ${v.durationDays} days?`
              }
              path="/api/v1/write/marketplace/list"
              body={(v) => ({
                tokenId: id,
                priceInCOIN: v.priceInCOIN,
                durationDays: v.durationDays,
              })}
              doneText="Listed."
              write={write}
            />
            <WriteAction
              label="Transfer"
              fields={[{ name: "toAddress", label: "To address", placeholder: "0x…" }]}
              schema={transferAssetSchema}
              question={(v) => `Transfer token #${id} to ${v.toAddress}? This cannot be undone.`}
              path="/api/v1/write/transfer"
              body={(v) => ({ tokenId: id, toAddress: v.toAddress })}
              doneText="Transferred."
              write={write}
              danger
            />
            <WriteAction
              label="Redeem"
              fields={
                asset.hasPassword
                  ? [{ name: "password", label: "Password", placeholder: "asset password" }]
                  : []
              }
              schema={asset.hasPassword ? redeemAssetSchema : noFieldsSchema}
              question={() =>
                `Redeem token #${id}? It is burnt and its stake returns to the wallet. This cannot be undone.`
              }
              path="/api/v1/write/redeem-asset"
              body={(v) => ({ tokenId: id, ...v })}
              doneText="Redeemed."
              write={write}
              danger
            />
          </>
        )}
        {listing !== undefined &&
          (listing.state === "active" || listing.state === "expired") &&
          mine && (
            <WriteAction
              label={listing.state === "expired" ? "Reclaim" : "Delist"}
              schema={noFieldsSchema}
              question={() =>
                listing.state === "expired"
                  ? `Listing #${listing.listingId} has expired. Take token #${id} back to your wallet?`
                  : `Cancel listing #${listing.listingId}? The token returns to your wallet.`
              }
              path="/api/v1/write/marketplace/delist"
              body={() => ({ listingId: listing.listingId })}
              doneText={listing.state === "expired" ? "Reclaimed." : "Delisted."}
              write={write}
              danger
            />
          )}
        {listing !== undefined && listing.state === "active" && !mine && wallet !== null && (
          <WriteAction
            label="Buy"
            schema={noFieldsSchema}
            question={() =>
              `Buy token #${id} for ${priceOf(listing)} COIN (paid from your wallet)?`
            }
            path="/api/v1/write/marketplace/buy"
            body={() => ({ listingId: listing.listingId, maxPriceInCOIN: priceOf(listing) })}
            doneText="Bought."
            write={write}
          />
        )}
      </div>
      <TxProgress state={write.state} />
    </>
  );
}
