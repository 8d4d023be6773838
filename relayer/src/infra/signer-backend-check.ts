import type { Database } from "../db/client.js";
import { ConfigError } from "../errors.js";
import { parsePkcs11KeyRef } from "../wallets/pkcs11-key-ref.js";
import { Pkcs11Signer } from "../wallets/pkcs11-signer.js";
import type { SignerRouter } from "../wallets/signer-router.js";

/** The wallets of each backend (and, for PKCS#11, each token) that the database holds. */
export interface WalletBackendCount {
  backend: string;
  /** The token label of PKCS#11 wallets; undefined for other backends. */
  token: string | undefined;
  wallets: number;
}

/**
 * Makes sure this process can sign for every wallet the database holds: each wallet keeps the
 * backend its key was made in (`wallets.signer_backend`), so a backend with wallets must be
 * configured, and PKCS#11 wallets must be on the configured token. Refusing here beats a start
 * whose writes would then wait forever for a signer.
 *
 * @returns the wallets per backend (and token), for the start-up log
 * @throws ConfigError naming the setting to add or correct (PKCS11_MODULE, PKCS11_TOKEN_LABEL)
 */
export async function verifySignerBackends(
  database: Database,
  signers: SignerRouter,
): Promise<WalletBackendCount[]> {
  const { rows } = await database.pool.query<{ backend: string; ref: string; wallets: number }>(
    // One row per backend and PKCS#11 token (a key reference's first part names its token),
    // with one of its wallets' references to read the token from.
    `SELECT signer_backend AS backend, min(encrypted_key) AS ref, count(*)::int AS wallets
       FROM wallets
      GROUP BY signer_backend,
               CASE WHEN signer_backend = 'pkcs11' THEN split_part(encrypted_key, ';', 1) END
      ORDER BY 1, 2`,
  );
  const counts = rows.map((row) => ({
    backend: row.backend,
    token: row.backend === "pkcs11" ? parsePkcs11KeyRef(row.ref).token : undefined,
    wallets: row.wallets,
  }));
  for (const { backend, token, wallets } of counts) {
    const configured = signers.backend(backend);
    const some =
      wallets === 1
        ? "1 organization wallet keeps its key"
        : `${wallets} organization wallets keep their keys`;
    if (configured === undefined && backend === "pkcs11") {
      throw new ConfigError(
        `Missing PKCS11_MODULE: ${some} in PKCS#11 token "${token}" ` +
          `(signer backend pkcs11), and this relayer has no PKCS#11 token configured. Set ` +
          `PKCS11_MODULE, PKCS11_TOKEN_LABEL and PKCS11_PIN to that token.`,
        { details: { variable: "PKCS11_MODULE", wallets } },
      );
    }
    if (configured === undefined) {
      throw new ConfigError(
        `Invalid SIGNER: ${some} in signer backend "${backend}", which this ` +
          `relayer does not have (it knows ${signers.configured.join(", ")})`,
        { details: { variable: "SIGNER", wallets } },
      );
    }
    const label = configured instanceof Pkcs11Signer ? configured.token.label : undefined;
    if (backend === "pkcs11" && token !== label) {
      throw new ConfigError(
        `Invalid PKCS11_TOKEN_LABEL: ${some} in PKCS#11 token "${token}", ` +
          `but PKCS11_TOKEN_LABEL is "${label}". Point it at the token that holds them ` +
          `(moving keys between tokens is not supported).`,
        { details: { variable: "PKCS11_TOKEN_LABEL", wallets } },
      );
    }
  }
  return counts;
}
