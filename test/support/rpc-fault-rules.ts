/**
 * The rules of `rpc-fault-proxy.ts`: what the proxy does to a JSON-RPC call instead of (or on
 * top of) forwarding it to the node, and which calls a rule applies to. Pure: no sockets, no
 * clock of its own (`now` is passed in), so `test/unit/rpc-fault-rules.test.ts` checks it alone.
 */

/**
 * What to do with one matching call.
 *
 * Per call (inside a batch, only that entry is affected):
 * - `error`: answer a JSON-RPC error instead of forwarding (`indexingInProgress()`,
 *   `methodNotFound(method)`);
 * - `result`: answer this result instead of forwarding (`{ kind: "result", value: null }`);
 * - `delay`: wait `ms`, then forward (the whole HTTP answer waits for its slowest entry);
 * - `drop`: never forward, never answer: a batch answer omits the entry; a call sent alone gets
 *   no answer at all (`alone: "hang"`, the default, until the client gives up; `"close"`: the
 *   socket is closed);
 * - `forward-then-drop`: forward to the node, then drop the answer as `drop` does (the node got
 *   the request, the client never hears back: a broadcast whose answer is lost).
 *
 * Per HTTP request (one matching entry decides for its whole batch; nothing is forwarded):
 * - `http`: answer this HTTP status and body (a gateway's 503, 429, ...);
 * - `close`: close the socket without answering.
 */
export type FaultAction =
  | { kind: "error"; code: number; message: string; data?: unknown }
  | { kind: "result"; value: unknown }
  | { kind: "delay"; ms: number }
  | { kind: "drop"; alone?: "hang" | "close" }
  | { kind: "forward-then-drop"; alone?: "hang" | "close" }
  | { kind: "http"; status: number; body?: string }
  | { kind: "close" };

/** Actions that answer for the whole HTTP request. */
export const REQUEST_LEVEL_KINDS: ReadonlySet<FaultAction["kind"]> = new Set(["http", "close"]);

/** One rule: which calls, what to do, and for how long. */
export interface FaultRule {
  /** JSON-RPC method(s) the rule applies to; `"*"` matches every method. */
  method: string | readonly string[];
  action: FaultAction;
  /** Apply to this many calls, then lapse (default: no limit). */
  times?: number;
  /** Apply only during this many milliseconds from the moment the rule is added. */
  forMs?: number;
  /**
   * Apply to every `every`-th matching call only (the `every`-th, `2 × every`-th, ...), so a
   * node "fails now and then" deterministically. Default 1: every matching call.
   */
  every?: number;
  /** Only calls sent alone (`"single"`) or only entries of a batch (`"batch"`). Default both. */
  where?: "single" | "batch" | "any";
  /** A further condition on the call's params. */
  when?: (params: readonly unknown[]) => boolean;
}

/** An added rule, as the test sees it. */
export interface RuleHandle {
  /** How many calls the rule has acted on so far. */
  readonly hits: number;
  /** Whether the rule can still act (not removed, not used up, window not over). */
  readonly active: boolean;
  /** Removes the rule (calls already affected stay affected). */
  remove(): void;
}

interface RuleState {
  rule: FaultRule;
  until: number;
  matched: number;
  hits: number;
  removed: boolean;
}

/**
 * An ordered set of rules. For each call the first active rule whose filters match decides;
 * a call no rule matches is forwarded unchanged.
 *
 * @example
 * const rules = new RuleBook();
 * rules.add({ method: "eth_getTransactionReceipt", action: indexingInProgress(), forMs: 10_000 }, Date.now());
 * rules.select("eth_getTransactionReceipt", [hash], "single", Date.now()); // the error action
 */
export class RuleBook {
  readonly #rules: RuleState[] = [];

  /** Adds a rule after the existing ones; `now` starts its `forMs` window. */
  add(rule: FaultRule, now: number): RuleHandle {
    if (rule.every !== undefined && (!Number.isInteger(rule.every) || rule.every < 1))
      throw new RangeError("every must be a positive integer");
    const state: RuleState = {
      rule,
      until: rule.forMs === undefined ? Number.POSITIVE_INFINITY : now + rule.forMs,
      matched: 0,
      hits: 0,
      removed: false,
    };
    this.#rules.push(state);
    const live = () =>
      !state.removed &&
      (rule.times === undefined || state.hits < rule.times) &&
      Date.now() < state.until;
    return {
      get hits() {
        return state.hits;
      },
      get active() {
        return live();
      },
      remove: () => {
        state.removed = true;
        const at = this.#rules.indexOf(state);
        if (at >= 0) this.#rules.splice(at, 1);
      },
    };
  }

  /** Removes every rule. */
  clear(): void {
    for (const state of this.#rules) state.removed = true;
    this.#rules.length = 0;
  }

  /**
   * The action for one call, counting it against the rule that applies (undefined: forward it
   * unchanged). `where` says whether the call came alone or inside a batch.
   */
  select(
    method: string,
    params: readonly unknown[],
    where: "single" | "batch",
    now: number,
  ): FaultAction | undefined {
    for (const state of this.#rules) {
      const { rule } = state;
      if (state.removed || now >= state.until) continue;
      if (rule.times !== undefined && state.hits >= rule.times) continue;
      if (!methodMatches(rule.method, method)) continue;
      if (rule.where !== undefined && rule.where !== "any" && rule.where !== where) continue;
      if (rule.when !== undefined && !rule.when(params)) continue;
      state.matched += 1;
      if (state.matched % (rule.every ?? 1) !== 0) continue;
      state.hits += 1;
      return rule.action;
    }
    return undefined;
  }
}

function methodMatches(pattern: FaultRule["method"], method: string): boolean {
  const list = typeof pattern === "string" ? [pattern] : pattern;
  return list.includes("*") || list.includes(method);
}

/**
 * geth's answer to receipt and transaction look-ups while it rebuilds its transaction index
 * after a restart (-32000 `transaction indexing is in progress`).
 */
export function indexingInProgress(): FaultAction {
  return { kind: "error", code: -32000, message: "transaction indexing is in progress" };
}

/** A node's answer to a method it does not have (-32601, geth's wording). */
export function methodNotFound(method: string): FaultAction {
  return {
    kind: "error",
    code: -32601,
    message: `the method ${method} does not exist/is not available`,
  };
}

/** A gateway's refusal of the whole request (HTTP 503 by default: the client fails over). */
export function gatewayError(status = 503): FaultAction {
  return { kind: "http", status, body: `upstream unavailable (${status})` };
}
