import { Suspense } from "react";
import { Loading } from "../../ui/common/states";
import { TransactionDetailPanel } from "../../ui/transactions/transaction-detail";

/**
 * One write's timeline: `/transactions/detail/?id=<transactionId>` (a query string, so the static
 * export has one page for every write, as `/assets/detail/`).
 */
export default function TransactionDetailPage() {
  return (
    <Suspense fallback={<Loading label="Loading the transaction…" />}>
      <TransactionDetailPanel />
    </Suspense>
  );
}
