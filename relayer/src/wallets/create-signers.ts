import type { Logger } from "pino";
import type { SignerSettings } from "./signer-settings.js";
import type { CustodialSigner } from "./custodial-signer.js";
import type { KeyStore } from "./key-store.js";
import { LocalKeySigner } from "./local-signer.js";
import { Pkcs11Signer } from "./pkcs11-signer.js";
import { SignerRouter } from "./signer-router.js";

/**
 * The process's signer backends from the configuration: the local key store always (it opens the
 * wallets sealed under MASTER_KEY), the PKCS#11 token when PKCS11_MODULE is set, and SIGNER for
 * new wallets. Opening the token loads its module and logs in, once for the process.
 *
 * @throws ConfigError naming SIGNER, PKCS11_MODULE, PKCS11_TOKEN_LABEL or PKCS11_PIN
 * @example
 * const signers = createSigners(config, keyStore, logger);
 * // on shutdown: await signers.close();
 */
export function createSigners(
  config: { signer?: SignerSettings | undefined },
  keyStore: KeyStore,
  logger: Logger,
): SignerRouter {
  const settings = config.signer ?? { newWallets: "local" };
  const backends: CustodialSigner[] = [new LocalKeySigner(keyStore)];
  if (settings.pkcs11 !== undefined) {
    backends.push(
      Pkcs11Signer.open(settings.pkcs11, {
        makesKeys: settings.newWallets === "pkcs11",
        logger: logger.child({ component: "pkcs11" }),
      }),
    );
  }
  try {
    return new SignerRouter(backends, settings.newWallets);
  } catch (error) {
    for (const backend of backends) void backend.close();
    throw error;
  }
}
