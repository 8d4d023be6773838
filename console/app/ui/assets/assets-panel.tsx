"use client";

import Link from "next/link";
import { useState } from "react";
import { api, query } from "../../lib/api";
import { priceOf } from "../../lib/format";
import { assetFilterSchema, fieldErrors } from "../../lib/schemas";
import type { AssetDetail, Page } from "../../lib/types";
import { useCursorPages } from "../../lib/use-cursor-pages";
import { useResource } from "../../lib/use-resource";
import { Pager } from "../common/pager";
import { EmptyState, ErrorState, FieldError, Loading } from "../common/states";
import { AssetImage } from "./asset-image";

const PAGE_SIZE = 24;

/**
 * The organization's assets as a gallery: what its wallet owns and what it has listed (held in
 * escrow), newest first, each card with its image, name, type, stake and listing, linking to the
 * detail view. Filterable by type, 24 per page.
 */
export function AssetsPanel() {
  const pages = useCursorPages();
  const [typeInput, setTypeInput] = useState("");
  const [assetType, setAssetType] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const path = `/api/enterprise/assets${query({ assetType, limit: PAGE_SIZE, cursor: pages.cursor })}`;
  const assets = useResource(path, () => api<Page<AssetDetail>>("GET", path));

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
    <section className="card" aria-label="Asset gallery">
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
          <ul className="gallery">
            {assets.data.data.map((asset) => {
              const name = asset.name ?? `Token #${asset.tokenId}`;
              return (
                <li key={asset.tokenId} className="gallery-item" data-testid="asset-card">
                  <Link href={`/assets/detail/?id=${asset.tokenId}`} className="asset-card">
                    <AssetImage image={asset.image} name={name} />
                    <span className="asset-card-body">
                      <span className="asset-name">{name}</span>
                      <span className="muted">
                        #{asset.tokenId} · {asset.assetType ?? "unknown type"}
                      </span>
                      <span>
                        Stake {asset.stakedAmount} COIN
                        {asset.listing !== null && (
                          <span className="status status-ok">
                            listed · {priceOf(asset.listing)} COIN
                          </span>
                        )}
                        {asset.redeemed && <span className="status status-off">redeemed</span>}
                      </span>
                    </span>
                  </Link>
                </li>
              );
            })}
          </ul>
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
