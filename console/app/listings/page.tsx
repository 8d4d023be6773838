import { Suspense } from "react";
import { Loading } from "../ui/common/states";
import { ListingsPanel } from "../ui/listings/listings-panel";

/** Listings screen. */
export default function ListingsPage() {
  return (
    <>
      <h1>Listings</h1>
      <Suspense fallback={<Loading label="Loading listings…" />}>
        <ListingsPanel />
      </Suspense>
    </>
  );
}
