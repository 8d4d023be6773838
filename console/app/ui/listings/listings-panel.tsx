"use client";

import Link from "next/link";
import { useState } from "react";
import { api, query } from "../../lib/api";
import { LISTING_STATES } from "../../lib/constants";
import { formatTime, priceOf, sameAddress, shortHex } from "../../lib/format";
import { listingFilterSchema, noFieldsSchema } from "../../lib/schemas";
import { useSignedIn } from "../../lib/session";
import type { ListingRecord, Page } from "../../lib/types";
import { useCursorPages } from "../../lib/use-cursor-pages";
import { useResource } from "../../lib/use-resource";
import { useWrite } from "../../lib/use-write";
import { TxProgress } from "../actions/tx-progress";
import { WriteAction } from "../actions/write-action";
import { DataTable } from "../common/data-table";

const PAGE_SIZE = 20;
/** Org sessions always have a wallet; never fall back to listing everyone's records. */
const NO_WALLET = "0x0000000000000000000000000000000000000000";

/**
 * Marketplace listings: the organization's own (as seller, any state) or the whole market's
 * active ones, with delist beside its own active listings and buy beside other sellers'.
 */
export function ListingsPanel() {
  const { walletAddress } = useSignedIn();
  const pages = useCursorPages();
  const [scope, setScope] = useState<"mine" | "market">("mine");
  const [status, setStatus] = useState<"" | (typeof LISTING_STATES)[number]>("");
  const params = query({
    seller: scope === "mine" ? (walletAddress ?? NO_WALLET) : undefined,
    state: scope === "market" ? "active" : status,
    limit: PAGE_SIZE,
    cursor: pages.cursor,
  });
  const path = `/api/v1/marketplace${params}`;
  const listings = useResource(path, () => api<Page<ListingRecord>>("GET", path));
  const write = useWrite(listings.reload);

  return (
    <section className="card">
      <div className="filters">
        <fieldset className="segmented">
          <legend className="visually-hidden">Which listings</legend>
          {(["mine", "market"] as const).map((value) => (
            <label key={value} className="check">
              <input
                type="radio"
                name="listing-scope"
                checked={scope === value}
                onChange={() => {
                  setScope(value);
                  pages.reset();
                }}
              />
              {value === "mine" ? "Yours" : "Whole market (active)"}
            </label>
          ))}
        </fieldset>
        {scope === "mine" && (
          <>
            <label htmlFor="listing-status">Status</label>
            <select
              id="listing-status"
              value={status}
              onChange={(event) => {
                const parsed = listingFilterSchema.safeParse({ status: event.target.value });
                if (!parsed.success) return;
                setStatus(parsed.data.status);
                pages.reset();
              }}
            >
              <option value="">All</option>
              {LISTING_STATES.map((state) => (
                <option key={state} value={state}>
                  {state}
                </option>
              ))}
            </select>
          </>
        )}
      </div>
      <TxProgress state={write.state} />
      <DataTable
        caption="Listings"
        rows={listings.data?.data}
        loading={listings.loading}
        error={listings.error}
        onRetry={listings.reload}
        rowKey={(l) => l.listingId}
        rowTestId="listing-row"
        empty={{
          title:
            scope === "market"
              ? "No active listings on the market"
              : status === ""
                ? "No listings yet"
                : `No ${status} listings`,
        }}
        pagination={{
          page: pages.page,
          nextCursor: listings.data?.nextCursor,
          onPrevious: pages.previous,
          onNext: pages.next,
        }}
        columns={[
          {
            id: "listing",
            header: "Listing",
            cell: (l) => `#${l.listingId}`,
            sortValue: (l) => Number(l.listingId),
          },
          {
            id: "token",
            header: "Token",
            cell: (l) => <Link href={`/assets/detail/?id=${l.tokenId}`}>#{l.tokenId}</Link>,
            sortValue: (l) => Number(l.tokenId),
          },
          {
            id: "price",
            header: "Price",
            cell: (l) => `${priceOf(l)} COIN`,
            sortValue: (l) => Number(priceOf(l)),
          },
          {
            id: "state",
            header: "State",
            cell: (l) => (
              <span className={`status ${l.state === "active" ? "status-ok" : "status-off"}`}>
                {l.state}
              </span>
            ),
            sortValue: (l) => l.state,
          },
          {
            id: "seller",
            header: "Seller",
            cell: (l) =>
              sameAddress(l.seller, walletAddress) ? (
                "you"
              ) : (
                <code title={l.seller}>{shortHex(l.seller)}</code>
              ),
          },
          {
            id: "listed",
            header: "Listed",
            cell: (l) => formatTime(l.listedAt),
            sortValue: (l) => l.listedAt,
          },
          {
            id: "expires",
            header: "Expires",
            cell: (l) => formatTime(l.expiresAt),
            sortValue: (l) => l.expiresAt,
          },
          {
            id: "tx",
            header: "Tx",
            cell: (l) => <code title={l.txHash}>{shortHex(l.txHash)}</code>,
            copy: (l) => l.txHash,
          },
          {
            id: "actions",
            header: "Actions",
            hiddenHeader: true,
            cell: (l) =>
              l.state !== "active" ? null : sameAddress(l.seller, walletAddress) ? (
                <WriteAction
                  label="Delist"
                  schema={noFieldsSchema}
                  question={() =>
                    `Cancel listing #${l.listingId}? The token returns to your wallet.`
                  }
                  path="/api/v1/write/marketplace/delist"
                  body={() => ({ listingId: l.listingId })}
                  doneText="Delisted."
                  write={write}
                  danger
                />
              ) : (
                <WriteAction
                  label="Buy"
                  schema={noFieldsSchema}
                  question={() =>
                    `Buy token #${l.tokenId} for ${priceOf(l)} COIN (paid from your wallet)?`
                  }
                  path="/api/v1/write/marketplace/buy"
                  body={() => ({ listingId: l.listingId, maxPriceInCOIN: priceOf(l) })}
                  doneText="Bought."
                  write={write}
                />
              ),
          },
        ]}
      />
    </section>
  );
}
