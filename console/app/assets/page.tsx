import { AssetsPanel } from "../ui/assets/assets-panel";

/** Assets screen. */
export default function AssetsPage() {
  return (
    <>
      <h1>Assets</h1>
      <AssetsPanel />
    </>
  );
}
