"use client";

import { useState } from "react";
import { api, query } from "../../lib/api";
import { LISTING_STATES } from "../../lib/constants";
import { formatTime, shortHex } from "../../lib/format";
import { listingFilterSchema } from "../../lib/schemas";
import { useSignedIn } from "../../lib/session";
import type { ListingRecord, Page } from "../../lib/types";
import { useCursorPages } from "../../lib/use-cursor-pages";
import { useResource } from "../../lib/use-resource";
import { Pager } from "../common/pager";
import { EmptyState, ErrorState, Loading } from "../common/states";

const PAGE_SIZE = 20;
/** Org sessions always have a wallet; never fall back to listing everyone's records. */
const NO_WALLET = "0x0000000000000000000000000000000000000000";

/** The organization's marketplace listings (as seller), filterable by state, 20 per page. */
export function ListingsPanel() {
  const { walletAddress } = useSignedIn();
  const pages = useCursorPages();
  const [status, setStatus] = useState<"" | (typeof LISTING_STATES)[number]>("");
  const path = `/api/v1/marketplace${query({ seller: walletAddress ?? NO_WALLET, status, limit: PAGE_SIZE, cursor: pages.cursor })}`;
  const listings = useResource(path, () => api<Page<ListingRecord>>("GET", path));

  return (
    <section className="card">
      <div className="filters">
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
      </div>
      {listings.loading && listings.data === undefined ? (
        <Loading label="Loading listings…" />
      ) : listings.error !== undefined ? (
        <ErrorState message={listings.error} onRetry={listings.reload} />
      ) : listings.data === undefined || listings.data.data.length === 0 ? (
        <EmptyState title={status === "" ? "No listings yet" : `No ${status} listings`} />
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Listing</th>
                  <th>Token</th>
                  <th>Price</th>
                  <th>State</th>
                  <th>Listed</th>
                  <th>Expires</th>
                  <th>Buyer</th>
                </tr>
              </thead>
              <tbody>
                {listings.data.data.map((listing) => (
                  <tr key={listing.listingId} data-testid="listing-row">
                    <td>#{listing.listingId}</td>
                    <td>#{listing.tokenId}</td>
                    <td>{listing.price} COIN</td>
                    <td>
                      <span
                        className={`status ${listing.state === "active" ? "status-ok" : "status-off"}`}
                      >
                        {listing.state}
                      </span>
                    </td>
                    <td>{formatTime(listing.listedAt)}</td>
                    <td>{formatTime(listing.expiresAt)}</td>
                    <td title={listing.buyer ?? undefined}>
                      {listing.buyer === null ? "—" : <code>{shortHex(listing.buyer)}</code>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            page={pages.page}
            nextCursor={listings.data.nextCursor}
            onPrevious={pages.previous}
            onNext={pages.next}
          />
        </>
      )}
    </section>
  );
}
