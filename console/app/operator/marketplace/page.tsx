import { RescueTokenForm } from "../../ui/operator/rescue-token-form";

/** Operator: marketplace tools (rescue of a token stranded without a listing). */
export default function OperatorMarketplacePage() {
  return (
    <>
      <h1>Marketplace</h1>
      <RescueTokenForm />
    </>
  );
}
