"use client";

import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { api } from "../../lib/api";
import { formatTime, priceOf, safeLink, sameAddress } from "../../lib/format";
import { useSignedIn } from "../../lib/session";
import type { AssetDetail, AssetHistoryEvent, ListingRecord, ResponseBody } from "../../lib/types";
import { useResource } from "../../lib/use-resource";
import { CopyButton } from "../common/copy-button";
import { hexColumn, timeColumn, valueColumn } from "../common/columns";
import { DataTable, type Column } from "../common/data-table";
import { Hex } from "../common/hex";
import { Panel } from "../common/panel";
import { ErrorState, Loading } from "../common/states";
import { AssetActions } from "./asset-actions";
import { AssetImage } from "./asset-image";

const HISTORY_WORDS: Readonly<Record<string, string>> = {
  issued: "Issued",
  transferred: "Transferred",
  listed: "Listed",
  "price-changed": "Price changed",
  sold: "Sold",
  delisted: "Delisted",
  reclaimed: "Reclaimed (expired)",
  redeemed: "Redeemed",
  "metadata-updated": "Metadata updated",
};

/**
 * One asset: image, name and description (plain text: metadata is never rendered as HTML),
 * owner, stake, type, metadata CID, the active listing, the actions that fit, and the on-chain
 * history with every transaction hash.
 */
export function AssetDetailPanel() {
  const id = useSearchParams().get("id") ?? "";
  const valid = /^[1-9]\d{0,77}$/.test(id);
  const { walletAddress } = useSignedIn();
  const asset = useResource(`asset-${id}`, () =>
    valid
      ? api<AssetDetail>("GET", `/api/v1/assets/${id}`)
      : Promise.reject(new Error("No such asset id in the address.")),
  );
  const listingId = asset.data?.listing?.listingId;
  const listing = useResource(`listing-${listingId ?? "none"}`, () =>
    listingId === undefined
      ? Promise.resolve(undefined)
      : api<ListingRecord>("GET", `/api/v1/marketplace/${listingId}`),
  );
  const history = useResource(`history-${id}`, async () => {
    if (!valid) return [];
    const { data } = await api<ResponseBody<"/api/v1/assets/{id}/history", "get">>(
      "GET",
      `/api/v1/assets/${id}/history`,
    );
    return data;
  });
  const reload = () => {
    asset.reload();
    listing.reload();
    history.reload();
  };

  if (asset.loading && asset.data === undefined) return <Loading label="Loading the asset…" />;
  if (asset.error !== undefined || asset.data === undefined)
    return (
      <>
        <h1>Asset</h1>
        <ErrorState message={asset.error ?? "Not found"} onRetry={asset.reload} />
      </>
    );
  const a = asset.data;
  const name = a.name ?? `Token #${a.tokenId}`;
  const external = safeLink(a.externalUrl);
  const columns: ReadonlyArray<Column<AssetHistoryEvent>> = [
    {
      id: "event",
      header: "Event",
      cell: (e) => HISTORY_WORDS[e.event] ?? e.event,
      sortValue: (e) => e.event,
    },
    timeColumn("at", "When", (e) => e.at),
    hexColumn("from", "From", (e) => e.from, { copy: false }),
    hexColumn("to", "To", (e) => e.to, { copy: false }),
    {
      id: "price",
      header: "Price",
      cell: (e) => (e.price === null ? "—" : `${e.price} COIN`),
    },
    valueColumn("block", "Block", (e) => e.blockNumber),
    hexColumn("tx", "Transaction", (e) => e.txHash),
  ];

  return (
    <div className="stack">
      <p>
        <Link href="/assets/">← All assets</Link>
      </p>
      <h1 data-testid="asset-title">{name}</h1>
      <section className="card detail">
        <AssetImage image={a.image} name={name} size="large" />
        <div className="detail-facts">
          {a.description !== null && a.description !== "" && (
            <p className="description" data-testid="asset-description">
              {a.description}
            </p>
          )}
          <dl className="facts">
            <dt>Token id</dt>
            <dd>
              <span className="copy-cell">
                <code data-testid="asset-token-id">{a.tokenId}</code>
                <CopyButton value={a.tokenId} compact />
              </span>
            </dd>
            <dt>Type</dt>
            <dd>{a.assetType ?? "—"}</dd>
            <dt>Owner</dt>
            <dd>
              <Hex value={a.owner} testId="asset-owner" />
              {sameAddress(a.owner, walletAddress) && <span className="badge">your wallet</span>}
              {a.listing !== null && <span className="muted"> (marketplace escrow)</span>}
            </dd>
            <dt>Stake</dt>
            <dd>{a.stakedAmount} COIN</dd>
            <dt>Minted</dt>
            <dd>
              {formatTime(a.mintedAt)} in block {a.mintBlock}
            </dd>
            <dt>Mint transaction</dt>
            <dd>
              <Hex value={a.mintTxHash} />
            </dd>
            <dt>Metadata</dt>
            <dd>
              <Hex value={a.ipfsHash} />{" "}
              <a href={`/api/v1/nft/${a.tokenId}`} rel="noopener noreferrer" target="_blank">
                JSON
              </a>
            </dd>
            {external !== undefined && (
              <>
                <dt>External link</dt>
                <dd>
                  <a href={external} rel="noopener noreferrer nofollow" target="_blank">
                    {external}
                  </a>
                </dd>
              </>
            )}
            <dt>Compliance</dt>
            <dd data-testid="asset-compliance">
              {a.frozen
                ? `Frozen by the operator: ${a.frozenReason ?? "no reason given"}. It cannot be transferred, listed, bought or redeemed.`
                : "Not frozen"}
              {a.restricted && ". Restricted type: only allowlisted wallets may hold it"}
            </dd>
            <dt>Listing</dt>
            <dd data-testid="asset-listing">
              {a.redeemed
                ? "Redeemed"
                : a.listing === null
                  ? "Not listed"
                  : `Listing #${a.listing.listingId} at ${priceOf(a.listing)} COIN, until ${formatTime(a.listing.expiresAt)}`}
            </dd>
          </dl>
          <AssetActions
            asset={a}
            listing={listing.data}
            wallet={walletAddress}
            onSettled={reload}
          />
        </div>
      </section>
      <Panel title="History">
        <DataTable
          caption="On-chain history"
          resource={history}
          rowKey={(e) => `${e.blockNumber}-${e.logIndex}`}
          rowTestId="history-row"
          empty={{ title: "No on-chain events indexed yet" }}
          columns={columns}
        />
      </Panel>
    </div>
  );
}
