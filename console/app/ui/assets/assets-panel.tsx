"use client";

import { useState } from "react";
import { api, query } from "../../lib/api";
import { formatTime, shortHex } from "../../lib/format";
import { assetFilterSchema, fieldErrors } from "../../lib/schemas";
import { useSignedIn } from "../../lib/session";
import type { AssetRecord, Page } from "../../lib/types";
import { useCursorPages } from "../../lib/use-cursor-pages";
import { useResource } from "../../lib/use-resource";
import { Pager } from "../common/pager";
import { EmptyState, ErrorState, FieldError, Loading } from "../common/states";

const PAGE_SIZE = 20;
/** Org sessions always have a wallet; never fall back to listing everyone's records. */
const NO_WALLET = "0x0000000000000000000000000000000000000000";

/** The organization's assets (owned by its wallet), filterable by type, 20 per page. */
export function AssetsPanel() {
  const { walletAddress } = useSignedIn();
  const pages = useCursorPages();
  const [typeInput, setTypeInput] = useState("");
  const [assetType, setAssetType] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const path = `/api/v1/assets${query({ owner: walletAddress ?? NO_WALLET, assetType, limit: PAGE_SIZE, cursor: pages.cursor })}`;
  const assets = useResource(path, () => api<Page<AssetRecord>>("GET", path));

  const applyFilter = (event: React.FormEvent) => {
    event.preventDefault();
    const parsed = assetFilterSchema.safeParse({ assetType: typeInput });
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors({});
    setAssetType(parsed.data.assetType);
    pages.reset();
  };

  return (
    <section className="card">
      <form className="filters" onSubmit={applyFilter} noValidate>
        <label htmlFor="asset-type-filter">Asset type</label>
        <input
          id="asset-type-filter"
          placeholder="e.g. Bond (exact, case-sensitive)"
          value={typeInput}
          onChange={(event) => setTypeInput(event.target.value)}
          aria-describedby="asset-type-filter-error"
        />
        <button type="submit" className="button button-small">
          Filter
        </button>
        <FieldError id="asset-type-filter-error" message={errors.assetType} />
      </form>
      {assets.loading && assets.data === undefined ? (
        <Loading label="Loading assets…" />
      ) : assets.error !== undefined ? (
        <ErrorState message={assets.error} onRetry={assets.reload} />
      ) : assets.data === undefined || assets.data.data.length === 0 ? (
        <EmptyState title={assetType === "" ? "No assets yet" : `No ${assetType} assets`}>
          <p className="muted">Assets issued through the API appear here a few seconds later.</p>
        </EmptyState>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Token</th>
                  <th>Name</th>
                  <th>Type</th>
                  <th>Stake</th>
                  <th>Listing</th>
                  <th>Minted</th>
                  <th>Tx</th>
                </tr>
              </thead>
              <tbody>
                {assets.data.data.map((asset) => (
                  <tr key={asset.tokenId} data-testid="asset-row">
                    <td>#{asset.tokenId}</td>
                    <td>{asset.name ?? "—"}</td>
                    <td>{asset.assetType ?? "—"}</td>
                    <td>{asset.stakedAmount} COIN</td>
                    <td>
                      {asset.listing === null
                        ? asset.redeemed
                          ? "redeemed"
                          : "—"
                        : `listed at ${asset.listing.price}`}
                    </td>
                    <td>{formatTime(asset.mintedAt)}</td>
                    <td title={asset.mintTxHash}>
                      <code>{shortHex(asset.mintTxHash)}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            page={pages.page}
            nextCursor={assets.data.nextCursor}
            onPrevious={pages.previous}
            onNext={pages.next}
          />
        </>
      )}
    </section>
  );
}
