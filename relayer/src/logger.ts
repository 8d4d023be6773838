import {
  pino,
  stdSerializers,
  type DestinationStream,
  type Logger,
  type LoggerOptions,
} from "pino";

/** What replaces a redacted value in the log output. */
export const REDACTED = "[REDACTED]";

/**
 * Field names (compared lower-cased, without `-` and `_`) whose values are always redacted,
 * wherever they appear: top level, nested objects, request/response headers.
 */
const SECRET_FIELD_NAMES = new Set([
  "key",
  "secret",
  "password",
  "passwd",
  "token",
  "authorization",
  "proxyauthorization",
  "cookie",
  "setcookie",
  "mnemonic",
  "seed",
  "privatekey",
  "masterkey",
  "apikey",
  "xapikey",
  "admintoken",
  "xadmintoken",
  "databaseurl", // carries the database password
  "connectionstring",
  "pin", // a PKCS#11 token's user PIN (PKCS11_PIN)
  "pkcs11pin",
  "sopin",
  // A person's second factor: a TOTP code, its secret and its enrollment URI (docs/people.md).
  "totp",
  "otpauthuri",
  "xcsrftoken",
]);

/** Suffixes that mark a field as secret (`webhookSecret`, `operatorPrivateKey`, `pgPassword`...). */
const SECRET_SUFFIXES = ["secret", "password", "token", "key", "mnemonic"];

/**
 * Secret-looking substrings scrubbed from every string that is logged (messages, error texts),
 * because a key pasted into a URL or an error message is not behind a field name.
 */
const SECRET_PATTERNS: readonly RegExp[] = [
  /rwa_live_[0-9a-fA-F]{16,}/g, // API keys
  /ent_admin_[0-9a-fA-F]{16,}/g, // admin tokens
  /(postgres(?:ql)?:\/\/[^:/@\s]+:)[^@\s]+@/g, // passwords in connection strings
];

/**
 * Names that end like a secret but are public: a contract called AssetToken, public keys, and
 * idempotency keys (client-chosen request ids, useful when tracing retries).
 */
const PUBLIC_FIELD_NAMES = new Set(["assettoken", "publickey", "idempotencykey"]);

/** Whether a field of this name holds a secret and must not be logged. */
export function isSecretFieldName(name: string): boolean {
  const normalised = name.toLowerCase().replace(/[-_\s]/g, "");
  if (SECRET_FIELD_NAMES.has(normalised)) return true;
  if (PUBLIC_FIELD_NAMES.has(normalised)) return false;
  return SECRET_SUFFIXES.some((suffix) => normalised.endsWith(suffix));
}

/** Replaces API keys, admin tokens and connection-string passwords inside a string. */
export function scrubString(text: string): string {
  let out = text;
  for (const pattern of SECRET_PATTERNS) {
    out = out.replace(pattern, (match, prefix: unknown) =>
      typeof prefix === "string" && match.startsWith("postgres")
        ? `${prefix}${REDACTED}@`
        : REDACTED,
    );
  }
  return out;
}

/**
 * Top-level names for pino's own path redaction. The object walker below covers every log call;
 * pino serialises child-logger bindings without `formatters`, so those go through these paths.
 */
const BINDING_REDACT_PATHS = [
  "key",
  "secret",
  "password",
  "token",
  "authorization",
  "cookie",
  "mnemonic",
  "apiKey",
  "api_key",
  '["x-api-key"]',
  "adminToken",
  "admin_token",
  '["x-admin-token"]',
  "privateKey",
  "private_key",
  "operatorPrivateKey",
  "masterKey",
  "master_key",
  "masterKeyPrevious",
  "webhookSecret",
  "databaseUrl",
  "headers.authorization",
  'headers["x-api-key"]',
  'headers["x-admin-token"]',
  "headers.cookie",
];

const MAX_DEPTH = 10;

/** Fields of serialised errors that hold live objects rather than facts about the error. */
const ERROR_FIELDS_DROPPED = ["client", "connection", "socket", "request", "response"];

/**
 * Returns a copy of `value` with secret fields replaced by `[REDACTED]` and secret patterns
 * scrubbed from strings. Errors are serialised first (so `err.message` is scrubbed too).
 * Cycles and very deep objects are cut rather than followed.
 */
export function redactValue(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === "string") return scrubString(value);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return "[Truncated]";
  if (seen.has(value)) return "[Circular]";
  seen.add(value);
  if (value instanceof Error) {
    const serialised = stdSerializers.err(value) as unknown as Record<string, unknown>;
    // Driver errors carry their connection (pg attaches `client`: config, sockets, cancel keys).
    for (const noisy of ERROR_FIELDS_DROPPED) delete serialised[noisy];
    return redactValue(serialised, depth + 1, seen);
  }
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1, seen));
  if (value instanceof Date || Buffer.isBuffer(value)) return value;
  // Headers objects and Maps: turn into plain objects so their entries are checked too.
  const entries: Iterable<[string, unknown]> =
    value instanceof Map || (typeof Headers !== "undefined" && value instanceof Headers)
      ? (value as Map<string, unknown>).entries()
      : Object.entries(value);
  const out: Record<string, unknown> = {};
  for (const [name, field] of entries) {
    out[name] = isSecretFieldName(name) ? REDACTED : redactValue(field, depth + 1, seen);
  }
  return out;
}

/** Options of `createLogger`. */
export interface CreateLoggerOptions {
  /** pino level (`trace` ... `fatal`, or `silent`); default `info`. */
  level?: string;
  /** Where JSON lines go; default stdout. Tests pass a stream to capture the output. */
  destination?: DestinationStream;
  /** Static fields on every line (e.g. `{ service: "relayer" }`). */
  base?: Record<string, unknown>;
}

/**
 * Creates the service's pino JSON logger. Every logged object goes through `redactValue`, so
 * fields named like keys, secrets, passwords, tokens, private keys, `authorization`,
 * `x-api-key` or `x-admin-token` (at any depth, including request headers) are replaced by
 * `[REDACTED]`, and API keys/admin tokens found inside messages are scrubbed.
 *
 * @example
 * const logger = createLogger({ level: config.logLevel });
 * logger.info({ req: { headers } }, "request"); // headers["x-api-key"] is "[REDACTED]"
 */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const pinoOptions: LoggerOptions = {
    level: options.level ?? "info",
    base: options.base ?? { service: "rwa-relayer" },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      level: (label) => ({ level: label }),
      // Runs on the merged object of every call; child bindings are covered by `redact`.
      log: (object) => redactValue(object) as Record<string, unknown>,
    },
    redact: { paths: BINDING_REDACT_PATHS, censor: REDACTED },
    serializers: {
      // `formatters.log` has already serialised and scrubbed errors; pino's default `err`
      // serializer would treat that plain object as an error again and lose its type.
      err: (value: unknown) => (value instanceof Error ? redactValue(value) : value),
    },
    hooks: {
      // Messages and printf-style arguments are strings outside the merged object.
      logMethod(args, method) {
        const cleaned = args.map((arg) => (typeof arg === "string" ? scrubString(arg) : arg));
        return method.apply(this, cleaned as Parameters<typeof method>);
      },
    },
  };
  return options.destination === undefined
    ? pino(pinoOptions)
    : pino(pinoOptions, options.destination);
}

export type { Logger };
