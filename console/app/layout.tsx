import type { Metadata, Viewport } from "next";
import { SessionProvider } from "./lib/session";
import { AppShell } from "./ui/shell/app-shell";
import "./ui/global.css";

export const metadata: Metadata = {
  title: "RWA Console",
  description: "Organization and operator console of the asset-tokenization service",
  robots: { index: false, follow: false },
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

/** Root layout: the session provider and the shell around every screen. */
export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body>
        <SessionProvider>
          <AppShell>{children}</AppShell>
        </SessionProvider>
      </body>
    </html>
  );
}
