"use client";

import Link from "next/link";
import { priceOf } from "../../lib/format";
import { assetFilterSchema } from "../../lib/schemas";
import { useForm } from "../../lib/use-form";
import { usePagedResource } from "../../lib/use-paged-resource";
import { useUrlFields } from "../../lib/use-url-fields";
import { Pager } from "../common/pager";
import { EmptyState, FieldError, ResourceView, StatusPill } from "../common/states";
import { AssetImage } from "./asset-image";

const PAGE_SIZE = 24;

/**
 * The type filter: typed freely, checked with `assetFilterSchema`, applied on submit. Keyed by
 * the type in the URL, so Back or a link shows that type in the field, not the last one typed.
 */
function AssetTypeFilter({
  current,
  onFilter,
}: {
  current: string;
  onFilter: (assetType: string) => void;
}) {
  const filter = useForm(assetFilterSchema, { assetType: current }, (data) =>
    onFilter(data.assetType),
  );
  return (
    <form
      className="filters"
      onSubmit={(event) => {
        event.preventDefault();
        void filter.submit();
      }}
      noValidate
    >
      <label htmlFor="asset-type-filter">Asset type</label>
      <input
        id="asset-type-filter"
        placeholder="e.g. Bond (exact, case-sensitive)"
        value={filter.values.assetType}
        onChange={(event) => filter.set("assetType", event.target.value)}
        aria-describedby="asset-type-filter-error"
      />
      <button type="submit" className="button button-small">
        Filter
      </button>
      <FieldError id="asset-type-filter-error" message={filter.errors.assetType} />
    </form>
  );
}

/**
 * The organization's assets as a gallery: what its wallet owns and what it has listed (held in
 * escrow), newest first, each card with its image, name, type, stake and listing, linking to the
 * detail view. Filterable by type, 24 per page; the type and the page are in the URL
 * (`useUrlFields`).
 */
export function AssetsPanel() {
  // A type longer than the filter accepts (an edited link) reads as "any".
  const filters = useUrlFields({ assetType: "" }, { assetType: /^.{1,64}$/ });
  const { assetType } = filters.values;
  const assets = usePagedResource(
    "/api/enterprise/assets",
    { assetType },
    PAGE_SIZE,
    filters.pages,
  );
  // The same type again still goes back to page 1: setting a field drops the page.
  const filterBy = (type: string) => filters.set("assetType", type);

  return (
    <section className="card" aria-label="Asset gallery">
      <AssetTypeFilter key={assetType} current={assetType} onFilter={filterBy} />
      <ResourceView
        resource={assets}
        loadingLabel="Loading assets…"
        isEmpty={(rows) => rows.length === 0}
        empty={
          <EmptyState title={assetType === "" ? "No assets yet" : `No ${assetType} assets`}>
            <p className="muted">Assets issued through the API appear here a few seconds later.</p>
          </EmptyState>
        }
      >
        {(rows) => (
          <>
            <ul className="gallery">
              {rows.map((asset) => {
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
                            <StatusPill tone="ok">
                              listed · {priceOf(asset.listing)} COIN
                            </StatusPill>
                          )}
                          {asset.redeemed && <StatusPill tone="off">redeemed</StatusPill>}
                          {asset.frozen && (
                            <StatusPill
                              tone="bad"
                              title={asset.frozenReason ?? undefined}
                              testId="asset-frozen"
                            >
                              frozen
                            </StatusPill>
                          )}
                          {asset.restricted && <StatusPill tone="live">restricted</StatusPill>}
                        </span>
                      </span>
                    </Link>
                  </li>
                );
              })}
            </ul>
            <Pager {...assets.pagination} />
          </>
        )}
      </ResourceView>
    </section>
  );
}
