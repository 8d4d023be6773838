-- Where an API key may be used from (auth/allowed-ips.ts): canonical CIDR ranges; NULL: anywhere.
ALTER TABLE "api_keys" ADD COLUMN "allowed_ips" text[];
