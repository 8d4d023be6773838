import { existsSync } from "node:fs";
import path from "node:path";
import express, { Router, type Request, type Response } from "express";
import { CONSOLE_OUT_DIR, consoleBuildFailure } from "../console/build-console.js";

/** URL prefix of the console (Next.js `basePath`). */
export const CONSOLE_BASE_PATH = "/console";

/**
 * Browser hardening for the console's pages. Next's static export inlines its bootstrap
 * scripts, hence 'unsafe-inline' for scripts; everything else is same-origin only (no fonts,
 * scripts or analytics from the internet), and no other site may frame the console
 * (clickjacking on the revoke and delete buttons). Asset images are the one exception: a
 * token's metadata names its image, usually on another HTTPS host, so `img-src` also allows
 * `https:` (never plain `http:` from elsewhere) and `data:`. The console shows them only through
 * `<img>`, where an SVG runs no script and loads nothing, in a fixed-size box.
 */
const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy":
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
    "img-src 'self' data: https:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
};

function setPageHeaders(res: Response): void {
  for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
  // HTML names the hashed bundles of one build: always revalidate it.
  res.setHeader("Cache-Control", "no-cache");
}

function unavailablePage(reason: string): string {
  const escaped = reason.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Console unavailable</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1f2937}</style></head>
<body><h1>Console unavailable</h1><p>The admin console has not been built, so it cannot be shown.
The API is running normally.</p><p><strong>Reason:</strong> ${escaped}</p>
<p>Fix the build (<code>NEXT_TELEMETRY_DISABLED=1 npx next build console</code> shows the error)
and restart the relayer.</p></body></html>`;
}

/**
 * Serves the console's static export under `/console`: hashed assets under `/_next/static` with
 * a one-year immutable cache, pages (`<route>/index.html`, trailing-slash routes) with
 * `no-cache`, and for a page path without a file the nearest parent route's HTML (client-side
 * routing takes over), else the export's 404 page. Without an export (never built, or the build
 * failed) every console URL answers a 503 page saying why; the API is unaffected.
 *
 * @param outDir the export folder (default console/out)
 * @example
 * app.use(consoleRouter()); // before the 404 handler
 */
export function consoleRouter(outDir: string = CONSOLE_OUT_DIR): Router {
  const router = Router();
  const staticPages = express.static(outDir, {
    index: "index.html",
    redirect: true,
    dotfiles: "ignore",
    setHeaders: (res, file) => {
      if (file.endsWith(".html")) setPageHeaders(res);
      else res.setHeader("Cache-Control", "public, max-age=3600");
    },
  });
  const immutableAssets = express.static(path.join(outDir, "_next", "static"), {
    immutable: true,
    maxAge: "365d",
    fallthrough: false,
  });

  // Express matches "/console/" here too (non-strict routing): redirect only the bare prefix.
  router.get(CONSOLE_BASE_PATH, (req, res, next) => {
    if (req.path === CONSOLE_BASE_PATH) res.redirect(301, `${CONSOLE_BASE_PATH}/`);
    else next();
  });
  router.use(CONSOLE_BASE_PATH, (req: Request, res: Response, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      next();
      return;
    }
    if (!existsSync(path.join(outDir, "index.html"))) {
      const reason = consoleBuildFailure() ?? "console/out is missing (the console was not built)";
      res.setHeader("Retry-After", "60");
      res.setHeader("Cache-Control", "no-store");
      res.status(503).type("html").send(unavailablePage(reason));
      return;
    }
    if (req.path.startsWith("/_next/static/")) {
      req.url = req.url.slice("/_next/static".length);
      immutableAssets(req, res, next);
      return;
    }
    staticPages(req, res, () => {
      // Not a file. A page-like path (no extension) below a screen gets that screen's page.
      if (path.extname(req.path) === "") {
        const segments = req.path.split("/").filter((s) => s !== "" && s !== ".." && s !== ".");
        while (segments.length > 1) {
          segments.pop();
          const file = path.join(outDir, ...segments, "index.html");
          if (existsSync(file)) {
            setPageHeaders(res);
            res.sendFile(file);
            return;
          }
        }
      }
      const notFoundPage = path.join(outDir, "404.html");
      if (existsSync(notFoundPage)) {
        setPageHeaders(res);
        res.status(404).sendFile(notFoundPage);
        return;
      }
      next();
    });
  });
  return router;
}
