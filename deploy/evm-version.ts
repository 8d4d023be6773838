/**
 * The EVM version the contracts are compiled for, read by hardhat.config.ts, the deploy and the
 * doctor. By default the contracts target Berlin, so their bytecode runs on older private chains
 * (Besu and GoQuorum networks on London or Berlin): no PUSH0 (Shanghai), no MCOPY or transient
 * storage (Cancun). `EVM_VERSION` picks a later target for a chain known to support it.
 */

/** The EVM versions a build may target, oldest first (solc's names). */
export const EVM_VERSIONS = ["berlin", "london", "paris", "shanghai", "cancun", "prague"] as const;

/** One of `EVM_VERSIONS`. */
export type EvmVersion = (typeof EVM_VERSIONS)[number];

/** What the contracts are compiled for when `EVM_VERSION` is not set. */
export const DEFAULT_EVM_VERSION: EvmVersion = "berlin";

/** Whether `value` is one of `EVM_VERSIONS`. */
export function isEvmVersion(value: string): value is EvmVersion {
  return (EVM_VERSIONS as readonly string[]).includes(value);
}

/**
 * The EVM version to compile for: `EVM_VERSION` (case-insensitive) or `DEFAULT_EVM_VERSION`.
 *
 * @throws Error naming `EVM_VERSION` and the accepted values when it is set to anything else
 * @example
 * evmVersionFromEnv({ EVM_VERSION: "Cancun" }) // "cancun"
 */
export function evmVersionFromEnv(env: NodeJS.ProcessEnv = process.env): EvmVersion {
  const raw = env.EVM_VERSION?.trim().toLowerCase();
  if (raw === undefined || raw === "") return DEFAULT_EVM_VERSION;
  if (!isEvmVersion(raw)) {
    throw new Error(
      `EVM_VERSION must be one of ${EVM_VERSIONS.join(", ")} (got "${env.EVM_VERSION}")`,
    );
  }
  return raw;
}

/** Whether `version` is `other` or later. */
export function evmAtLeast(version: EvmVersion, other: EvmVersion): boolean {
  return EVM_VERSIONS.indexOf(version) >= EVM_VERSIONS.indexOf(other);
}

/**
 * The node features bytecode compiled for `version` may use, as the node probe
 * (`relayer/src/chain/rpc/node-dialect.ts`) detects them: PUSH0 from Shanghai on, MCOPY and
 * TLOAD/TSTORE from Cancun on, the BASEFEE opcode (and a base fee in blocks) from London on.
 * Paris adds no opcode the probe can see (PREVRANDAO reuses DIFFICULTY's); Prague's additions
 * are not used by solc 0.8.28's code generator, so a Prague build is checked as Cancun.
 */
export function featuresNeeded(version: EvmVersion): {
  push0: boolean;
  cancunOpcodes: boolean;
  london: boolean;
} {
  return {
    push0: evmAtLeast(version, "shanghai"),
    cancunOpcodes: evmAtLeast(version, "cancun"),
    london: evmAtLeast(version, "london"),
  };
}
