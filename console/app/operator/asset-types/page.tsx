import { AssetTypesPanel } from "../../ui/operator/asset-types-panel";

/** Operator: asset types screen. */
export default function OperatorAssetTypesPage() {
  return (
    <>
      <h1>Asset types</h1>
      <AssetTypesPanel />
    </>
  );
}
