import { WalletPanel } from "../ui/wallet/wallet-panel";

/** Wallet screen. */
export default function WalletPage() {
  return (
    <>
      <h1>Wallet</h1>
      <WalletPanel />
    </>
  );
}
