// @ts-check
import path from "node:path";

const repoRoot = path.resolve(import.meta.dirname, "..");
/**
 * The admin console: a static export (console/out) that the relayer serves under /console, so
 * the whole service stays one process on one port. Trailing slashes make every screen a folder
 * with an index.html, which plain static serving resolves without rewrites.
 *
 * @type {import("next").NextConfig}
 */
const nextConfig = {
  output: "export",
  basePath: "/console",
  trailingSlash: true,
  reactStrictMode: true,
  poweredByHeader: false,
  images: { unoptimized: true },
  // The console lives inside the relayer's repository: trace files from the repository root.
  outputFileTracingRoot: repoRoot,
  turbopack: { root: repoRoot },
};

export default nextConfig;
