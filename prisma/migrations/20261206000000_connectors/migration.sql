-- Connectors (docs/connectors.md): an organization's own MCP servers behind /mcp. An instance admin adds
-- one (its URL and upstream credential); its tools are read from the upstream and pinned; org admins
-- switch it on for their organization.

-- CreateTable
CREATE TABLE "connectors" (
    "id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "url" TEXT NOT NULL,
    "timeout_ms" INTEGER NOT NULL DEFAULT 30000,
    "status" TEXT NOT NULL DEFAULT 'active',
    "credential_sealed" TEXT,
    "problems" JSONB NOT NULL DEFAULT '[]',
    "last_refreshed_at" TIMESTAMPTZ(3),
    "last_refresh_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "connectors_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "connector_tools" (
    "connector_id" TEXT NOT NULL,
    "upstream_name" TEXT NOT NULL,
    "exposed_name" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "hold_reason" TEXT,
    "pinned" JSONB,
    "pinned_hash" TEXT,
    "held" JSONB,
    "held_hash" TEXT,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "connector_tools_pkey" PRIMARY KEY ("connector_id","upstream_name")
);

-- CreateTable
CREATE TABLE "org_connectors" (
    "org_id" TEXT NOT NULL,
    "connector_id" TEXT NOT NULL,
    "enabled_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "org_connectors_pkey" PRIMARY KEY ("org_id","connector_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "connectors_slug_key" ON "connectors"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "connector_tools_exposed_name_key" ON "connector_tools"("exposed_name");

-- CreateIndex
CREATE INDEX "org_connectors_connector_id_idx" ON "org_connectors"("connector_id");

-- AddForeignKey
ALTER TABLE "connector_tools" ADD CONSTRAINT "connector_tools_connector_id_fkey" FOREIGN KEY ("connector_id") REFERENCES "connectors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "org_connectors" ADD CONSTRAINT "org_connectors_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "org_connectors" ADD CONSTRAINT "org_connectors_connector_id_fkey" FOREIGN KEY ("connector_id") REFERENCES "connectors"("id") ON DELETE CASCADE ON UPDATE CASCADE;
