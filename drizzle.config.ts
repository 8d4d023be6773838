import { defineConfig } from "drizzle-kit";

// `npm run db:generate` turns schema changes into a new SQL migration.
export default defineConfig({
  dialect: "postgresql",
  schema: "./relayer/src/db/schema/index.ts",
  out: "./relayer/src/db/migrations",
});
