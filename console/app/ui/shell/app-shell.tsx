"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { api } from "../../lib/api";
import { useSession } from "../../lib/session";
import { Loading } from "../common/states";
import { LowBalanceBanner } from "../wallet/low-balance-banner";

const ORG_NAV = [
  { href: "/wallet/", label: "Wallet" },
  { href: "/activity/", label: "Activity" },
  { href: "/assets/", label: "Assets" },
  { href: "/listings/", label: "Listings" },
  { href: "/transactions/", label: "Transactions" },
  { href: "/keys/", label: "API keys" },
  { href: "/webhooks/", label: "Webhooks" },
  { href: "/audit/", label: "Audit log" },
  { href: "/policy/", label: "Policy" },
  { href: "/approvals/", label: "Approvals" },
] as const;

/** A person's own sessions and factors: for every signed-in person, of an org or the operator. */
const ACCOUNT_NAV = { href: "/account/", label: "Account" } as const;

/** People: for a signed-in owner or admin (a key's session has no people to manage). */
const PEOPLE_NAV = { href: "/people/", label: "People" } as const;

const OPERATOR_NAV = [
  { href: "/operator/orgs/", label: "Organizations" },
  { href: "/operator/asset-types/", label: "Asset types" },
  { href: "/operator/marketplace/", label: "Marketplace" },
  { href: "/operator/audit/", label: "Audit log" },
  { href: "/operator/compliance/", label: "Compliance" },
  { href: "/operator/requests/", label: "Requests" },
] as const;

/** The first screen after sign-in, by session kind. */
export function homeOf(kind: "org" | "operator"): string {
  return kind === "org" ? "/wallet/" : "/operator/orgs/";
}

function normalize(pathname: string | null): string {
  const path = pathname ?? "/";
  return path.endsWith("/") ? path : `${path}/`;
}

/**
 * Frame of every screen: header, navigation (a toggle below 768 px) and the session guard.
 * Signed out, every screen but sign-in sends you to sign-in; signed in, sign-in sends you home;
 * an org session never sees operator screens and vice versa.
 */
export function AppShell({ children }: { children: React.ReactNode }) {
  const { state, signOut } = useSession();
  const pathname = normalize(usePathname());
  const router = useRouter();
  const [navOpen, setNavOpen] = useState(false);
  const isSignIn = pathname === "/";
  // An invitation's link opens signed out or signed in alike.
  const isInvitation = pathname === "/accept-invitation/";
  const isOperatorPath = pathname.startsWith("/operator/");
  // A person's own account screen serves organization and operator sessions alike.
  const isAccount = pathname === "/account/";

  const redirect = isInvitation
    ? undefined
    : state.status === "signed-out" && !isSignIn
      ? "/"
      : state.status === "signed-in" &&
          (isSignIn ||
            (!isAccount && isOperatorPath !== (state.session.kind === "operator")) ||
            (isAccount && state.session.person === null))
        ? homeOf(state.session.kind)
        : undefined;

  useEffect(() => {
    if (redirect !== undefined) router.replace(redirect);
  }, [redirect, router]);

  useEffect(() => setNavOpen(false), [pathname]);

  // How many writes wait for approval, on the menu of those who decide (read again on each screen).
  const [waiting, setWaiting] = useState<number | undefined>(undefined);
  const decider =
    state.status === "signed-in" &&
    (state.session.person?.role === "approver" || state.session.person?.role === "owner");
  useEffect(() => {
    if (!decider) return;
    let cancelled = false;
    api<{ approvals: unknown[] }>("GET", "/api/enterprise/approvals", undefined, {
      quiet401: true,
    })
      .then(({ approvals }) => {
        if (!cancelled) setWaiting(approvals.length);
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [decider, pathname]);

  if (state.status === "loading" || redirect !== undefined) {
    return (
      <main className="page page-center">
        <Loading label="Checking your session…" />
      </main>
    );
  }
  if (state.status === "signed-out" || isInvitation) {
    return <main className="page page-center">{children}</main>;
  }

  const session = state.session;
  const role = session.person?.role;
  const base =
    session.kind === "operator"
      ? OPERATOR_NAV
      : role === "owner" || role === "admin"
        ? [...ORG_NAV, PEOPLE_NAV]
        : ORG_NAV;
  const nav = session.person === null ? base : [...base, ACCOUNT_NAV];
  return (
    <div className="shell">
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <header className="topbar">
        <button
          type="button"
          className="nav-toggle"
          aria-expanded={navOpen}
          aria-controls="main-nav"
          onClick={() => setNavOpen((open) => !open)}
        >
          <span aria-hidden="true">☰</span>
          <span className="visually-hidden">Menu</span>
        </button>
        <span className="brand">RWA Console</span>
        <span className="who" data-testid="who">
          {session.kind === "org" ? session.orgName : "Operator staff"}
          <span className="badge">{session.kind === "org" ? session.plan : "operator"}</span>
          {session.person !== null && (
            <span className="person" data-testid="person">
              {session.person.email} <span className="badge">{session.person.role}</span>
            </span>
          )}
        </span>
        <button type="button" className="button button-small" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <nav id="main-nav" className={`sidenav${navOpen ? " open" : ""}`} aria-label="Main">
        <ul>
          {nav.map((item) => (
            <li key={item.href}>
              <Link
                href={item.href}
                className={pathname.startsWith(item.href) ? "active" : undefined}
                aria-current={pathname.startsWith(item.href) ? "page" : undefined}
              >
                {item.label}
                {item.href === "/approvals/" && decider && waiting !== undefined && waiting > 0 && (
                  <span className="badge" data-testid="approvals-count">
                    {waiting}
                    <span className="visually-hidden"> waiting</span>
                  </span>
                )}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main className="page" id="content" tabIndex={-1}>
        {session.kind === "org" && <LowBalanceBanner key={pathname} />}
        {children}
      </main>
    </div>
  );
}
