import { ListingsPanel } from "../ui/listings/listings-panel";

/** Listings screen. */
export default function ListingsPage() {
  return (
    <>
      <h1>Listings</h1>
      <ListingsPanel />
    </>
  );
}
