"use client";

import { startAuthentication } from "@simplewebauthn/browser";
import { createContext, useCallback, useContext, useEffect, useMemo, useState } from "react";
import { api, ApiError, setCsrfToken, setUnauthorizedHandler } from "./api";
import type { SessionInfo } from "./types";

/** Where the console stands with the relayer's session cookie. */
export type SessionState =
  | { status: "loading" }
  | { status: "signed-out"; reason?: string }
  | { status: "signed-in"; session: SessionInfo };

interface SessionContextValue {
  state: SessionState;
  /**
   * Trades a credential for the session cookie: a person's email, password and TOTP code, or an
   * API key or the admin token. Nothing of it is kept anywhere.
   */
  signIn: (credential: SignInCredential) => Promise<void>;
  /** Signs in with a passkey (docs/people.md "Passkeys"): the browser asks the authenticator. */
  signInWithPasskey: () => Promise<void>;
  signOut: () => Promise<void>;
}

/** What `signIn` takes: a person's three fields, or a key or token as pasted. */
export type SignInCredential = string | { email: string; password: string; totp: string };

const SessionContext = createContext<SessionContextValue | undefined>(undefined);

/**
 * Keeps who is signed in, from `GET /api/console/session`. The session itself lives in an
 * httpOnly cookie the page cannot read; this only holds what the relayer says about it (and the
 * CSRF token for unsafe requests).
 */
export function SessionProvider({ children }: { children: React.ReactNode }) {
  const [state, setState] = useState<SessionState>({ status: "loading" });

  const apply = useCallback((session: SessionInfo | undefined, reason?: string) => {
    setCsrfToken(session?.csrfToken);
    setState(
      session === undefined
        ? reason === undefined
          ? { status: "signed-out" }
          : { status: "signed-out", reason }
        : { status: "signed-in", session },
    );
  }, []);

  useEffect(() => {
    setUnauthorizedHandler(() => apply(undefined, "Your session has ended. Sign in again."));
    let cancelled = false;
    api<SessionInfo>("GET", "/api/console/session", undefined, { quiet401: true })
      .then((session) => {
        if (!cancelled) apply(session);
      })
      .catch((error: unknown) => {
        if (cancelled) return;
        apply(
          undefined,
          error instanceof ApiError && error.status === 401 ? undefined : String(error),
        );
      });
    return () => {
      cancelled = true;
      setUnauthorizedHandler(undefined);
    };
  }, [apply]);

  const signIn = useCallback(
    async (credential: SignInCredential) => {
      const body =
        typeof credential !== "string"
          ? credential
          : credential.startsWith("ent_admin_")
            ? { adminToken: credential }
            : { apiKey: credential };
      const session = await api<SessionInfo>("POST", "/api/console/session", body, {
        quiet401: true,
      });
      apply(session);
    },
    [apply],
  );

  const signInWithPasskey = useCallback(async () => {
    const { challengeId, options } = await api<{ challengeId: string; options: unknown }>(
      "POST",
      "/api/console/session/passkey/options",
    );
    const response = await startAuthentication({
      optionsJSON: options as Parameters<typeof startAuthentication>[0]["optionsJSON"],
    });
    const session = await api<SessionInfo>(
      "POST",
      "/api/console/session/passkey",
      { challengeId, response },
      { quiet401: true },
    );
    apply(session);
  }, [apply]);

  const signOut = useCallback(async () => {
    try {
      await api("DELETE", "/api/console/session", undefined, { quiet401: true });
    } finally {
      apply(undefined, "You have signed out.");
    }
  }, [apply]);

  const value = useMemo(
    () => ({ state, signIn, signInWithPasskey, signOut }),
    [state, signIn, signInWithPasskey, signOut],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

/** The session context; only inside `SessionProvider`. */
export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (value === undefined) throw new Error("useSession outside SessionProvider");
  return value;
}

/** The signed-in session (the shell renders screens only once signed in). */
export function useSignedIn(): SessionInfo {
  const { state } = useSession();
  if (state.status !== "signed-in") throw new Error("screen rendered without a session");
  return state.session;
}
