/**
 * Signer backends benchmark: the local key store against a PKCS#11 token (SoftHSM2, initialised
 * in a temporary folder), in the same run. Prints, without asserting:
 * - signatures per second through the engine's seam (`SignerBackend.withDigestSigner`), one at a
 *   time and 16 in flight, for each backend, and the ratio; beside them the token alone (CKM_ECDSA
 *   without the relayer's low-s and recovery-id check, which recovers the key in JavaScript);
 * - issue-asset latency p50/p95 through the API for an organization of each backend on one stack,
 *   with anvil's 1 s blocks (as `npm start`) and with automine (where signing's share shows), and
 *   the ratio.
 *
 * Run: npm run bench -- signers  (env BENCH_SECONDS: duration of each signing phase, default 3)
 */
import { randomBytes } from "node:crypto";
import { hexlify, recoverAddress } from "ethers";
import pkcs11js from "pkcs11js";
import { startIndexer } from "../relayer/src/indexer/start-indexer.js";
import type { CustodialWalletRef } from "../relayer/src/wallets/signer-backend.js";
import type { Pkcs11Settings } from "../relayer/src/context.js";
import { registerOrganization } from "../relayer/src/orgs/registration.js";
import { SYSTEM_ORIGIN } from "../relayer/src/audit/audit-writer.js";
import type { CustodialSigner } from "../relayer/src/wallets/custodial-signer.js";
import { AesGcmKeyStore } from "../relayer/src/wallets/key-store.js";
import { LocalKeySigner } from "../relayer/src/wallets/local-signer.js";
import { Pkcs11Signer } from "../relayer/src/wallets/pkcs11-signer.js";
import { SignerRouter } from "../relayer/src/wallets/signer-router.js";
import { startSoftHsm } from "../test/support/softhsm.js";
import { startTestStack, type TestOrg } from "../test/support/stack.js";
import { percentile } from "./support/percentile.js";
import { runAsScript } from "./support/run-as-script.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const IN_FLIGHT = 16;
const ISSUES = 20;
const BODY = { assetType: "Bond", name: "Bench", description: "benchmark asset" };

/** Signatures per second of one wallet of `signer`, `inFlight` at a time, for `seconds`. */
async function signaturesPerSecond(
  signer: CustodialSigner,
  inFlight: number,
  seconds: number,
): Promise<number> {
  const walletId = `wal_bench_${randomBytes(4).toString("hex")}`;
  const key = await signer.createKey(walletId);
  const wallet: CustodialWalletRef = {
    id: walletId,
    address: key.address,
    encryptedKey: key.keyRef,
    signerBackend: signer.name,
  };
  let done = 0;
  const elapsed = await signer.withDigestSigner(wallet, async (sign) => {
    const check = hexlify(randomBytes(32));
    if (recoverAddress(check, await sign(check)) !== key.address)
      throw new Error(`${signer.name}: a signature does not recover to the wallet`);
    const t0 = performance.now();
    const until = t0 + seconds * 1000;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (performance.now() < until) {
          await sign(hexlify(randomBytes(32)));
          done++;
        }
      }),
    );
    return (performance.now() - t0) / 1000;
  });
  await signer.discardKey(walletId, key.keyRef);
  return done / elapsed;
}

/**
 * The token alone: C_SignInit + C_Sign (CKM_ECDSA) per digest, `inFlight` at a time, without the
 * relayer's low-s and recovery-id work (which is what the `pkcs11` row adds to it).
 */
async function tokenOnlyPerSecond(token: Pkcs11Signer, inFlight: number, seconds: number) {
  const walletId = `wal_bench_${randomBytes(4).toString("hex")}`;
  await token.createKey(walletId);
  const handle = await token.token.withSession((session, lib) => {
    lib.C_FindObjectsInit(session, [
      { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY },
      { type: pkcs11js.CKA_ID, value: Buffer.from(walletId) },
    ]);
    const [found] = lib.C_FindObjects(session, 1);
    lib.C_FindObjectsFinal(session);
    return found!;
  });
  let done = 0;
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < until) {
        await token.token.withSession((session, lib) => {
          lib.C_SignInit(session, { mechanism: pkcs11js.CKM_ECDSA }, handle);
          return lib.C_SignAsync(session, randomBytes(32), Buffer.alloc(132));
        });
        done++;
      }
    }),
  );
  const rate = done / ((performance.now() - t0) / 1000);
  await token.discardKey(walletId);
  return rate;
}

async function issueLatencies(org: TestOrg, count: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const res = await org.api("POST", "/api/v1/write/issue-asset", { body: BODY });
    if (res.status !== 200) throw new Error(`issue-asset ${res.status}: ${res.text}`);
    latencies.push(performance.now() - t0);
  }
  return latencies;
}

/** issue-asset p50/p95 of a local and a token organization on one stack. */
async function issueP50s(settings: Pkcs11Settings, blockTime: number): Promise<void> {
  const stack = await startTestStack({
    blockTime,
    logLevel: "warn",
    config: { signer: { newWallets: "pkcs11", pkcs11: settings } },
  });
  // A synchronous write answers once the indexer has applied its block, as under `npm start`.
  await stack.ctx.engine.start();
  const indexer = await startIndexer(stack.ctx, { lockPollMs: 200 });
  try {
    const tokenOrg = await stack.registerOrg();
    const local = new SignerRouter([stack.ctx.signers.backend("local")!], "local");
    const registered = await registerOrganization(
      { ...stack.ctx, signers: local },
      { orgName: "Local bench org", walletMode: "custodial", plan: "enterprise" },
      SYSTEM_ORIGIN,
    );
    const localOrg: TestOrg = {
      ...registered,
      api: (method, urlPath, options = {}) =>
        stack.api(method, urlPath, { apiKey: registered.apiKey, ...options }),
    };
    await issueLatencies(localOrg, 1); // warm-up
    await issueLatencies(tokenOrg, 1);
    const [localMs, tokenMs] = [
      await issueLatencies(localOrg, ISSUES),
      await issueLatencies(tokenOrg, ISSUES),
    ];
    const mode = blockTime === 0 ? "automine" : `${blockTime} s blocks`;
    const line = (name: string, ms: number[]) =>
      `  ${name.padEnd(8)} p50 ${percentile(ms, 50).toFixed(0)} ms, p95 ${percentile(ms, 95).toFixed(0)} ms`;
    console.log(`\nissue-asset latency (${ISSUES} sequential per org, ${mode}):`);
    console.log(line("local", localMs));
    console.log(line("pkcs11", tokenMs));
    console.log(
      `  ratio pkcs11 / local p50: ${(percentile(tokenMs, 50) / percentile(localMs, 50)).toFixed(2)}`,
    );
  } finally {
    await stack.ctx.engine.stop();
    await indexer.stop();
    await stack.stop();
  }
}

export async function runSignersBench(): Promise<void> {
  const hsm = startSoftHsm();
  try {
    const settings = hsm.initToken("rwa-bench");
    const local = new LocalKeySigner(new AesGcmKeyStore(randomBytes(32).toString("hex")));
    console.log(`Signing through SignerBackend.withDigestSigner (${SECONDS} s per phase)...`);
    const token = Pkcs11Signer.open(settings, { makesKeys: true });
    const rates: Record<string, [number, number]> = {};
    try {
      for (const signer of [local, token] as CustodialSigner[]) {
        rates[signer.name] = [
          await signaturesPerSecond(signer, 1, SECONDS),
          await signaturesPerSecond(signer, IN_FLIGHT, SECONDS),
        ];
      }
      rates["pkcs11, token only"] = [
        await tokenOnlyPerSecond(token, 1, SECONDS),
        await tokenOnlyPerSecond(token, IN_FLIGHT, SECONDS),
      ];
    } finally {
      await token.close();
    }
    console.log(`\nsignatures/s (one wallet)      1 at a time   ${IN_FLIGHT} in flight`);
    for (const [name, [one, many]] of Object.entries(rates))
      console.log(
        `  ${name.padEnd(28)} ${one.toFixed(0).padStart(11)}   ${many.toFixed(0).padStart(12)}`,
      );
    const [l1, lN] = rates.local!;
    const [p1, pN] = rates.pkcs11!;
    console.log(
      `  ratio local / pkcs11: ×${(l1 / p1).toFixed(1)} one at a time, ×${(lN / pN).toFixed(1)} ${IN_FLIGHT} in flight`,
    );

    await issueP50s(settings, 1);
    await issueP50s(settings, 0);
  } finally {
    hsm.remove();
  }
}

runAsScript(import.meta.url, runSignersBench);
