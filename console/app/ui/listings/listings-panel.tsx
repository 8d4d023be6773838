"use client";

import Link from "next/link";
import { LISTING_STATES } from "../../lib/constants";
import { priceOf, sameAddress, shortHex } from "../../lib/format";
import { noFieldsSchema } from "../../lib/schemas";
import { useSignedIn } from "../../lib/session";
import type { ListingRecord } from "../../lib/types";
import { usePagedResource } from "../../lib/use-paged-resource";
import { useUrlFields } from "../../lib/use-url-fields";
import { useWrite } from "../../lib/use-write";
import { TxProgress } from "../actions/tx-progress";
import { WriteAction } from "../actions/write-action";
import { actionsColumn, hexColumn, statusColumn, timeColumn } from "../common/columns";
import { DataTable, type Column } from "../common/data-table";
import { RadioGroup } from "../common/radio-group";
import { SelectField } from "../common/select-field";
import type { Tone } from "../common/states";

const PAGE_SIZE = 20;
const STATE_TONES: Readonly<Record<ListingRecord["state"], Tone>> = {
  active: "ok",
  sold: "off",
  cancelled: "off",
  expired: "off",
};
/** Org sessions always have a wallet; never fall back to listing everyone's records. */
const NO_WALLET = "0x0000000000000000000000000000000000000000";
const SCOPES = [
  { value: "mine", label: "Yours" },
  { value: "market", label: "Whole market (active)" },
];

/**
 * Marketplace listings: the organization's own (as seller, any state) or the whole market's
 * active ones, with delist beside its own active listings and buy beside other sellers'. The
 * scope, the state filter and the page are in the URL (`useUrlFields`).
 */
export function ListingsPanel() {
  const { walletAddress } = useSignedIn();
  const filters = useUrlFields(
    { scope: "mine", status: "" },
    { scope: SCOPES.map((s) => s.value), status: LISTING_STATES },
  );
  const { scope, status } = filters.values;
  const listings = usePagedResource(
    "/api/v1/marketplace",
    {
      seller: scope === "mine" ? (walletAddress ?? NO_WALLET) : undefined,
      state: scope === "market" ? "active" : status,
    },
    PAGE_SIZE,
    filters.pages,
  );
  const write = useWrite(listings.reload);

  const columns: ReadonlyArray<Column<ListingRecord>> = [
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
    statusColumn("state", "State", (l) => l.state, STATE_TONES),
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
    timeColumn("listed", "Listed", (l) => l.listedAt),
    timeColumn("expires", "Expires", (l) => l.expiresAt),
    hexColumn("tx", "Tx", (l) => l.txHash),
    actionsColumn((l) =>
      l.state !== "active" ? null : sameAddress(l.seller, walletAddress) ? (
        <WriteAction
          label="Delist"
          schema={noFieldsSchema}
          question={() => `Cancel listing #${l.listingId}? The token returns to your wallet.`}
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
          question={() => `Buy token #${l.tokenId} for ${priceOf(l)} COIN (paid from your wallet)?`}
          path="/api/v1/write/marketplace/buy"
          body={() => ({ listingId: l.listingId, maxPriceInCOIN: priceOf(l) })}
          doneText="Bought."
          write={write}
        />
      ),
    ),
  ];

  return (
    <section className="card">
      <div className="filters">
        <RadioGroup
          legend="Which listings"
          options={SCOPES}
          segmented
          {...filters.field("scope")}
        />
        {scope === "mine" && (
          <SelectField
            id="listing-status"
            label="Status"
            options={LISTING_STATES}
            any
            {...filters.field("status")}
          />
        )}
      </div>
      <TxProgress state={write.state} />
      <DataTable
        caption="Listings"
        resource={listings}
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
        pagination={listings.pagination}
        columns={columns}
      />
    </section>
  );
}
