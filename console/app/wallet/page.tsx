import { AlertThresholdForm } from "../ui/wallet/alert-threshold-form";
import { WalletPanel } from "../ui/wallet/wallet-panel";

/** Wallet screen. */
export default function WalletPage() {
  return (
    <>
      <h1>Wallet</h1>
      <div className="stack">
        <WalletPanel />
        <AlertThresholdForm />
      </div>
    </>
  );
}
