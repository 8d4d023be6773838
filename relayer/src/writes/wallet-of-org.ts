import type { OrgWalletRef } from "../engine/tx-store.js";

/**
 * The org's custodial wallet as a write is prepared against it (id, address, signer backend;
 * the sealed key stays in the engine's hands): `TxStore.walletOf`.
 */
export type OrgWallet = OrgWalletRef;
