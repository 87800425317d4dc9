-- OAuth client credentials for a connector's upstream (docs/connectors.md, Client credentials): instead of
-- fixed header lines, Gatehouse gets an access token from the upstream's authorization server with the
-- client-credentials grant (RFC 6749 §4.4) and sends it as a bearer token. The client secret is sealed
-- like the header credential (same key derivation from AUTH_SECRET, re-sealed by secret:rotate); the rest
-- is configuration an admin may see. A connector has one kind of credential or the other, never both.

-- AlterTable
ALTER TABLE "connectors"
    ADD COLUMN "token_url" TEXT,
    ADD COLUMN "token_client_id" TEXT,
    ADD COLUMN "token_client_secret_sealed" TEXT,
    ADD COLUMN "token_client_auth" TEXT,
    ADD COLUMN "token_scope" TEXT,
    ADD COLUMN "token_resource" TEXT;

-- Either no client credentials at all, or all that a token request needs, and then no header credential.
ALTER TABLE "connectors" ADD CONSTRAINT "connectors_client_credentials_check" CHECK (
    ("token_url" IS NULL AND "token_client_id" IS NULL AND "token_client_secret_sealed" IS NULL
        AND "token_client_auth" IS NULL AND "token_scope" IS NULL AND "token_resource" IS NULL)
    OR ("token_url" IS NOT NULL AND "token_client_id" IS NOT NULL AND "token_client_secret_sealed" IS NOT NULL
        AND "token_client_auth" IN ('client_secret_basic', 'client_secret_post') AND "credential_sealed" IS NULL)
);
