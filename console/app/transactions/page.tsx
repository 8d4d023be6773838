import { TransactionsPanel } from "../ui/transactions/transactions-panel";

/** Transactions screen. */
export default function TransactionsPage() {
  return (
    <>
      <h1>Transactions</h1>
      <TransactionsPanel />
    </>
  );
}
