import { Suspense } from "react";
import { AssetDetailPanel } from "../../ui/assets/asset-detail";
import { Loading } from "../../ui/common/states";

/** One asset: `/assets/detail/?id=<tokenId>` (a query string, so the static export has one page). */
export default function AssetDetailPage() {
  return (
    <Suspense fallback={<Loading label="Loading the asset…" />}>
      <AssetDetailPanel />
    </Suspense>
  );
}
