import pkcs11js from "pkcs11js";
import type { Logger } from "pino";
import type { Pkcs11Settings } from "./signer-settings.js";
import { ConfigError, HsmUnavailableError } from "../errors.js";
import { SECP256K1_EC_PARAMS } from "./secp256k1.js";

/** A PKCS#11 session or object handle (the binding's opaque bytes). */
export type Pkcs11Handle = Buffer;
/** The loaded module, for the calls a session's work makes. */
export type Pkcs11Module = InstanceType<typeof pkcs11js.PKCS11>;

/** Options of `Pkcs11Token.open`. */
export interface Pkcs11TokenOptions {
  /** Sessions in the pool: how many token calls may run at once. Default 4. */
  sessions?: number;
  /**
   * Check at start that the token can make secp256k1 keys (a throw-away session key) and is not
   * full: set when new organizations' keys are made there (SIGNER=pkcs11).
   */
  makesKeys?: boolean;
  /** Least time between two attempts to reconnect to a token that went away. Default 1 s. */
  reconnectIntervalMs?: number;
  logger?: Logger;
}

/** Return codes after which the session is still good: the call was refused, nothing broke. */
const SESSION_SURVIVES = new Set<number>([
  pkcs11js.CKR_DEVICE_MEMORY,
  pkcs11js.CKR_HOST_MEMORY,
  pkcs11js.CKR_ARGUMENTS_BAD,
  pkcs11js.CKR_ATTRIBUTE_SENSITIVE,
  pkcs11js.CKR_ATTRIBUTE_TYPE_INVALID,
  pkcs11js.CKR_ATTRIBUTE_VALUE_INVALID,
  pkcs11js.CKR_TEMPLATE_INCOMPLETE,
  pkcs11js.CKR_TEMPLATE_INCONSISTENT,
  pkcs11js.CKR_MECHANISM_INVALID,
  pkcs11js.CKR_MECHANISM_PARAM_INVALID,
  pkcs11js.CKR_DATA_LEN_RANGE,
  pkcs11js.CKR_KEY_TYPE_INCONSISTENT,
  pkcs11js.CKR_KEY_FUNCTION_NOT_PERMITTED,
  pkcs11js.CKR_DOMAIN_PARAMS_INVALID,
  0x140, // CKR_CURVE_NOT_SUPPORTED (PKCS#11 2.40; the binding has no constant for it)
]);

/** True for an error the PKCS#11 module returned (it carries the CKR_ code). */
export function isPkcs11Error(error: unknown): error is Error & { code: number } {
  return error instanceof pkcs11js.Pkcs11Error;
}

/** The CKR_ name of a module's error (`CKR_PIN_INCORRECT`), or its message. */
export function pkcs11Reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.message.split(/[\s:]/, 1)[0] || error.message;
}

/** A problem while connecting: which variable it points at and what the token said. */
class ConnectFailure extends Error {
  constructor(
    readonly variable: "PKCS11_MODULE" | "PKCS11_TOKEN_LABEL" | "PKCS11_PIN",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const SESSION_FLAGS = pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION;

/**
 * One PKCS#11 token for the whole process: the module loaded once, one login, and a small pool
 * of sessions so that several signatures can run at once (each call of a session runs on its own,
 * off the event loop through the binding's `…Async` calls; the module is initialised with
 * CKF_OS_LOCKING_OK so it guards itself across those threads).
 *
 * When the token goes away (its sessions closed, the device removed, a network HSM restarted) the
 * call fails with `HsmUnavailableError`, the pool is marked broken, and the next call, once every
 * session is back, reconnects: finalize, initialize, find the token, open the sessions, log in
 * (at most once per `reconnectIntervalMs`). Object handles from before are then stale: callers
 * that cache them compare `generation`.
 */
export class Pkcs11Token {
  readonly label: string;
  readonly #settings: Pkcs11Settings;
  readonly #lib: Pkcs11Module;
  readonly #size: number;
  readonly #makesKeys: boolean;
  readonly #reconnectMs: number;
  readonly #logger: Logger | undefined;
  #idle: Pkcs11Handle[] = [];
  #leased = 0;
  #waiters: Array<() => void> = [];
  #generation = 0;
  #broken: { reason: string; cause: unknown } | undefined;
  #lastAttempt = 0;
  #closed = false;

  private constructor(settings: Pkcs11Settings, lib: Pkcs11Module, options: Pkcs11TokenOptions) {
    this.label = settings.tokenLabel;
    this.#settings = settings;
    this.#lib = lib;
    this.#size = Math.max(1, options.sessions ?? 4);
    this.#makesKeys = options.makesKeys ?? false;
    this.#reconnectMs = options.reconnectIntervalMs ?? 1_000;
    this.#logger = options.logger;
  }

  /**
   * Loads the module, finds the token by label, opens the session pool and logs in.
   *
   * @throws ConfigError naming PKCS11_MODULE (cannot load or initialise it), PKCS11_TOKEN_LABEL
   *   (no such token, no ECDSA, no secp256k1, full) or PKCS11_PIN (refused, locked); the PIN
   *   itself is never quoted
   * @example
   * const token = Pkcs11Token.open({ module: "/usr/lib/softhsm/libsofthsm2.so", tokenLabel: "rwa", pin });
   */
  static open(settings: Pkcs11Settings, options: Pkcs11TokenOptions = {}): Pkcs11Token {
    const lib = new pkcs11js.PKCS11();
    try {
      lib.load(settings.module);
    } catch (cause) {
      throw new ConfigError(
        `Invalid PKCS11_MODULE: cannot load the PKCS#11 module ${settings.module} ` +
          `(${pkcs11Reason(cause)}); set it to the path of the HSM vendor's PKCS#11 library (.so)`,
        { cause, details: { variable: "PKCS11_MODULE" } },
      );
    }
    const token = new Pkcs11Token(settings, lib, options);
    try {
      token.#connect(true);
    } catch (cause) {
      token.#shutdown();
      if (cause instanceof ConnectFailure)
        throw new ConfigError(`Invalid ${cause.variable}: ${cause.message}`, {
          cause: cause.cause,
          details: { variable: cause.variable },
        });
      throw cause;
    }
    return token;
  }

  /** Changes whenever the token was reconnected: object handles of an older generation are stale. */
  get generation(): number {
    return this.#generation;
  }

  /**
   * Runs `work` with a session of its own (logged in). A failure of the module becomes
   * `HsmUnavailableError`; one that leaves the session unusable marks the token for reconnecting.
   *
   * @throws HsmUnavailableError when the token cannot be used now (or `work`'s own errors)
   */
  async withSession<T>(
    work: (session: Pkcs11Handle, lib: Pkcs11Module) => Promise<T> | T,
  ): Promise<T> {
    const session = await this.#acquire();
    const generation = this.#generation;
    let broken = false;
    try {
      return await work(session, this.#lib);
    } catch (error) {
      if (!isPkcs11Error(error)) throw error;
      const reason = pkcs11Reason(error);
      if (!SESSION_SURVIVES.has(error.code)) {
        broken = true;
        this.#markBroken(reason, error);
      }
      throw this.#unavailable(reason, error);
    } finally {
      this.#release(session, generation, broken);
    }
  }

  /**
   * Resolves when the token can be used: at once while it answers, else after reconnecting.
   *
   * @throws HsmUnavailableError while the token is away (it last failed and does not answer yet)
   */
  async ensureAvailable(): Promise<void> {
    if (this.#broken === undefined && !this.#closed) return;
    const session = await this.#acquire();
    this.#release(session, this.#generation, false);
  }

  /** Logs out, closes the sessions and unloads the module (waits up to `timeoutMs` for calls). */
  async close(timeoutMs = 5_000): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const wake of this.#waiters.splice(0)) wake();
    const until = Date.now() + timeoutMs;
    while (this.#leased > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    this.#shutdown();
    try {
      this.#lib.close();
    } catch {
      // Already unloaded.
    }
  }

  /** Whether the token answered its last call (false from a failure until it reconnects). */
  get available(): boolean {
    return !this.#closed && this.#broken === undefined;
  }

  /** Initialises the module, finds the token, opens the sessions, logs in; `probe`: at start. */
  #connect(probe: boolean): void {
    const lib = this.#lib;
    try {
      lib.C_Initialize({ flags: pkcs11js.CKF_OS_LOCKING_OK });
    } catch (cause) {
      if (!isPkcs11Error(cause) || cause.code !== pkcs11js.CKR_CRYPTOKI_ALREADY_INITIALIZED)
        throw new ConnectFailure(
          "PKCS11_MODULE",
          `the PKCS#11 module ${this.#settings.module} failed to initialise (${pkcs11Reason(cause)})`,
          { cause },
        );
    }
    const labels: string[] = [];
    let slot: Pkcs11Handle | undefined;
    try {
      for (const candidate of lib.C_GetSlotList(true)) {
        const label = lib.C_GetTokenInfo(candidate).label.trim();
        labels.push(label);
        if (label === this.label && slot === undefined) slot = candidate;
      }
    } catch (cause) {
      throw new ConnectFailure(
        "PKCS11_TOKEN_LABEL",
        `listing the module's tokens failed (${pkcs11Reason(cause)})`,
        { cause },
      );
    }
    if (slot === undefined) {
      const present = labels.filter((l) => l !== "").map((l) => `"${l}"`);
      throw new ConnectFailure(
        "PKCS11_TOKEN_LABEL",
        `no token labelled "${this.label}" in ${this.#settings.module} ` +
          `(tokens present: ${present.length > 0 ? present.join(", ") : "none"})`,
      );
    }
    const mechanisms = new Set(lib.C_GetMechanismList(slot));
    for (const [mechanism, name] of [
      [pkcs11js.CKM_ECDSA, "CKM_ECDSA"],
      [pkcs11js.CKM_EC_KEY_PAIR_GEN, "CKM_EC_KEY_PAIR_GEN"],
    ] as const) {
      if (!mechanisms.has(mechanism))
        throw new ConnectFailure(
          "PKCS11_TOKEN_LABEL",
          `token "${this.label}" does not offer ${name}, which secp256k1 keys need`,
        );
    }
    const sessions: Pkcs11Handle[] = [];
    try {
      for (let i = 0; i < this.#size; i++) sessions.push(lib.C_OpenSession(slot, SESSION_FLAGS));
    } catch (cause) {
      // A token with fewer sessions than asked for still works, with fewer at once.
      if (sessions.length === 0)
        throw new ConnectFailure(
          "PKCS11_TOKEN_LABEL",
          `cannot open a session on token "${this.label}" (${pkcs11Reason(cause)})`,
          { cause },
        );
    }
    try {
      lib.C_Login(sessions[0]!, pkcs11js.CKU_USER, this.#settings.pin);
    } catch (cause) {
      if (!isPkcs11Error(cause) || cause.code !== pkcs11js.CKR_USER_ALREADY_LOGGED_IN) {
        const reason = pkcs11Reason(cause);
        const why =
          reason === "CKR_PIN_INCORRECT"
            ? "the token rejected the PIN"
            : reason === "CKR_PIN_LOCKED"
              ? "the token's user PIN is locked (too many wrong PINs): unlock it with the SO PIN"
              : "logging in to the token failed";
        throw new ConnectFailure("PKCS11_PIN", `${why} (${reason}, token "${this.label}")`, {
          cause,
        });
      }
    }
    if (probe && this.#makesKeys) this.#checkKeyGeneration(slot, sessions[0]!);
    this.#idle = sessions;
  }

  /**
   * SIGNER=pkcs11: the token must know secp256k1 and have room for keys. A throw-away key pair is
   * made on the token (a session key would not show a token that cannot store one) and destroyed.
   */
  #checkKeyGeneration(slot: Pkcs11Handle, session: Pkcs11Handle): void {
    const lib = this.#lib;
    const info = lib.C_GetTokenInfo(slot);
    if (isKnownZero(info.freePrivateMemory) || isKnownZero(info.freePublicMemory))
      throw new ConnectFailure(
        "PKCS11_TOKEN_LABEL",
        `token "${this.label}" is full (no free memory for new keys): free space on it, or set ` +
          `SIGNER=local until another token is configured`,
      );
    try {
      const label = { type: pkcs11js.CKA_LABEL, value: "rwa-start-probe" };
      const pair = lib.C_GenerateKeyPair(
        session,
        { mechanism: pkcs11js.CKM_EC_KEY_PAIR_GEN },
        [
          { type: pkcs11js.CKA_TOKEN, value: true },
          { type: pkcs11js.CKA_EC_PARAMS, value: SECP256K1_EC_PARAMS },
          label,
        ],
        [
          { type: pkcs11js.CKA_TOKEN, value: true },
          { type: pkcs11js.CKA_PRIVATE, value: true },
          { type: pkcs11js.CKA_SENSITIVE, value: true },
          { type: pkcs11js.CKA_SIGN, value: true },
          label,
        ],
      );
      lib.C_DestroyObject(session, pair.privateKey);
      lib.C_DestroyObject(session, pair.publicKey);
    } catch (cause) {
      const reason = pkcs11Reason(cause);
      throw new ConnectFailure(
        "PKCS11_TOKEN_LABEL",
        reason === "CKR_DEVICE_MEMORY"
          ? `token "${this.label}" is full (${reason}): free space on it, or set SIGNER=local`
          : `token "${this.label}" cannot make and keep a secp256k1 key (${reason}): it may be ` +
            `full, read-only, or without secp256k1`,
        { cause },
      );
    }
  }

  async #acquire(): Promise<Pkcs11Handle> {
    for (;;) {
      if (this.#closed)
        throw new HsmUnavailableError("HSM unavailable: the PKCS#11 token is closed");
      if (this.#broken !== undefined) {
        if (this.#leased > 0) throw this.#unavailable(this.#broken.reason, this.#broken.cause);
        this.#reconnect();
      }
      const session = this.#idle.pop();
      if (session !== undefined) {
        this.#leased += 1;
        return session;
      }
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  #release(session: Pkcs11Handle, generation: number, broken: boolean): void {
    this.#leased -= 1;
    if (!broken && this.#broken === undefined && generation === this.#generation && !this.#closed)
      this.#idle.push(session);
    this.#waiters.shift()?.();
  }

  #markBroken(reason: string, cause: unknown): void {
    if (this.#broken !== undefined) return;
    this.#broken = { reason, cause };
    this.#idle = [];
    this.#logger?.error(
      { tokenLabel: this.label, reason },
      "PKCS#11 token failed; signing waits until it answers again",
    );
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Starts over with the module; throws `HsmUnavailableError` while the token is still away. */
  #reconnect(): void {
    const broken = this.#broken!;
    if (Date.now() - this.#lastAttempt < this.#reconnectMs)
      throw this.#unavailable(broken.reason, broken.cause);
    this.#lastAttempt = Date.now();
    this.#shutdown();
    try {
      this.#connect(false);
    } catch (cause) {
      const reason = cause instanceof ConnectFailure ? cause.message : pkcs11Reason(cause);
      this.#broken = { reason, cause };
      throw this.#unavailable(reason, cause);
    }
    this.#generation += 1;
    this.#broken = undefined;
    this.#logger?.info({ tokenLabel: this.label }, "PKCS#11 token reconnected");
  }

  /** Best effort: close every session and finalize (nothing of ours runs on them). */
  #shutdown(): void {
    this.#idle = [];
    try {
      this.#lib.C_Finalize();
    } catch {
      // Not initialised, or the module is gone: nothing left to release.
    }
  }

  #unavailable(reason: string, cause: unknown): HsmUnavailableError {
    const what = !reason.startsWith("CKR_")
      ? `is not reachable: ${reason}`
      : reason === "CKR_DEVICE_MEMORY"
        ? "is full (CKR_DEVICE_MEMORY)"
        : `failed (${reason})`;
    return new HsmUnavailableError(`HSM unavailable: PKCS#11 token "${this.label}" ${what}`, {
      cause,
      details: { tokenLabel: this.label, reason },
    });
  }
}

/** A token's free-memory figure that says "none left" (CK_UNAVAILABLE_INFORMATION says nothing). */
function isKnownZero(value: number | bigint): boolean {
  return BigInt(value) === 0n;
}
