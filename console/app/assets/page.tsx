import { Suspense } from "react";
import { AssetsPanel } from "../ui/assets/assets-panel";
import { Loading } from "../ui/common/states";

/** Assets screen. */
export default function AssetsPage() {
  return (
    <>
      <h1>Assets</h1>
      <Suspense fallback={<Loading label="Loading assets…" />}>
        <AssetsPanel />
      </Suspense>
    </>
  );
}
