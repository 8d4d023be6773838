/**
 * Errors thrown by the deploy code. One base class with a short message, optional details and a
 * `cause`; subclasses only set `name` so callers can branch with `instanceof`.
 */
export class DeployError extends Error {
  /** Extra lines for a human (what to check, what to run). */
  readonly details: string | undefined;

  constructor(message: string, options: { details?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "DeployError";
    this.details = options.details;
  }
}

/** The JSON-RPC endpoint did not answer. */
export class RpcUnreachableError extends DeployError {
  constructor(rpcUrl: string, cause?: unknown) {
    super(`RPC endpoint ${rpcUrl} is unreachable`, {
      details: "Start a node (npm start, or anvil) or set RPC_URL to a reachable endpoint.",
      cause,
    });
    this.name = "RpcUnreachableError";
  }
}

/** The deployer cannot pay for the deployment. */
export class InsufficientFundsError extends DeployError {
  constructor(deployer: string, balance: bigint, cause?: unknown) {
    super(`Deployer ${deployer} has insufficient funds (balance ${balance} wei)`, {
      details: "Fund the deployer account on this chain, or use another DEPLOYER_PRIVATE_KEY.",
      cause,
    });
    this.name = "InsufficientFundsError";
  }
}

/** The node is on a different chain than expected (or than the deployment record). */
export class WrongChainError extends DeployError {
  constructor(expected: number, actual: number, where: string) {
    super(`Wrong chain: ${where} expects chain id ${expected}, the node reports ${actual}`);
    this.name = "WrongChainError";
  }
}

/** The recorded deployment was built from a different ABI than the current artifacts. */
export class AbiMismatchError extends DeployError {
  constructor(file: string, contracts: readonly string[]) {
    super(`ABI of ${contracts.join(", ")} differs from the deployment recorded in ${file}`, {
      details:
        "Re-run with --force (or force: true) to deploy new contracts and overwrite the record.",
    });
    this.name = "AbiMismatchError";
  }
}

/** A compiled artifact is missing or unreadable. */
export class ArtifactError extends DeployError {
  constructor(message: string, options: { details?: string; cause?: unknown } = {}) {
    super(message, options);
    this.name = "ArtifactError";
  }
}

/** A deployment file is missing or does not match the expected shape. */
export class DeploymentFileError extends DeployError {
  constructor(message: string, options: { details?: string; cause?: unknown } = {}) {
    super(message, options);
    this.name = "DeploymentFileError";
  }
}

/** Configuration (environment variables, options) is invalid. */
export class ConfigError extends DeployError {
  constructor(message: string, options: { details?: string; cause?: unknown } = {}) {
    super(message, options);
    this.name = "ConfigError";
  }
}

/** The node cannot run what would be deployed (its EVM is older than the contracts' target). */
export class NodeUnsupportedError extends DeployError {
  constructor(problems: readonly string[], details?: string) {
    super(problems.join("\n"), details === undefined ? {} : { details });
    this.name = "NodeUnsupportedError";
  }
}
