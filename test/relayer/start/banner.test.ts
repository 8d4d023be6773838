import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { redactUrl } from "../../../relayer/src/shared/redact-url.js";
import { printBanner } from "../../../relayer/src/start-relayer.js";

const API_KEY = "0123456789abcdef0123456789abcdef";
const RPC_URL = `https://rpcuser:rpc-pass-Secret1@rpc.example.com/v3/${API_KEY}?apikey=q-Secret2&x=1`;

function banner(rpcUrl: string): string {
  const lines: string[] = [];
  printBanner((line) => lines.push(line), {
    role: "all",
    baseUrl: "http://127.0.0.1:8080",
    rpcUrl,
    chainLabel: "RPC_URL",
    databaseLabel: "DATABASE_URL",
    adminToken: `ent_admin_${"ab".repeat(32)}`,
    adminTokenSource: "env",
    secretsFile: undefined,
    pids: { anvil: undefined, postgres: undefined },
    seconds: 1.2,
  });
  return lines.join("\n");
}

describe("start banner", () => {
  it("never prints the user, password, query values or API key path segment of RPC_URL", () => {
    const output = banner(RPC_URL);
    for (const secret of ["rpcuser", "rpc-pass-Secret1", API_KEY, "q-Secret2"]) {
      assert.ok(!output.includes(secret), `banner shows ${secret}`);
    }
    assert.match(
      output,
      /RPC URL\s+https:\/\/\*\*\*:\*\*\*@rpc\.example\.com\/v3\/\*\*\*\?apikey=\*\*\*&x=\*\*\* \(RPC_URL/,
    );
    assert.ok(
      !output.includes(`ent_admin_${"ab".repeat(32)}`),
      "a configured admin token is never printed",
    );
  });

  it("shows a plain local URL exactly as configured", () => {
    assert.match(banner("http://127.0.0.1:8545"), /RPC URL\s+http:\/\/127\.0\.0\.1:8545 \(RPC_URL/);
    assert.equal(redactUrl("http://127.0.0.1:8545"), "http://127.0.0.1:8545");
    assert.equal(redactUrl("ws://node.internal:8546/rpc"), "ws://node.internal:8546/rpc");
    assert.equal(redactUrl("not a url with a password"), "***");
  });
});
