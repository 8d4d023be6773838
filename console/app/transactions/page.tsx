import { Suspense } from "react";
import { Loading } from "../ui/common/states";
import { TransactionsPanel } from "../ui/transactions/transactions-panel";

/**
 * Transactions screen. The panel reads its filters and page from the query string: the boundary
 * lets the static export render this page without one (the fallback shows until the browser's).
 */
export default function TransactionsPage() {
  return (
    <>
      <h1>Transactions</h1>
      <Suspense fallback={<Loading label="Loading transactions…" />}>
        <TransactionsPanel />
      </Suspense>
    </>
  );
}
