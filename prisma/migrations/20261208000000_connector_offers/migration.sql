-- Which organizations may switch a connector on (docs/connectors.md, Who may switch it on). A connector
-- calls its upstream with Gatehouse's own credential, so an org admin must not be able to turn on a server
-- an instance admin set up for another organization: instance admins offer a connector to every org or to
-- listed ones, and org admins switch on only what is offered to them. Also: an instance admin's override
-- of the scope a connector tool needs.

-- AlterTable
ALTER TABLE "connectors" ADD COLUMN "offered_to_all" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "connector_tools" ADD COLUMN "scope_override" TEXT;
ALTER TABLE "connector_tools" ADD CONSTRAINT "connector_tools_scope_override_check" CHECK ("scope_override" IS NULL OR "scope_override" IN ('mcp:read', 'mcp:write'));

-- CreateTable
CREATE TABLE "connector_offers" (
    "connector_id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "offered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "connector_offers_pkey" PRIMARY KEY ("connector_id","org_id")
);

-- CreateIndex
CREATE INDEX "connector_offers_org_id_idx" ON "connector_offers"("org_id");

-- AddForeignKey
ALTER TABLE "connector_offers" ADD CONSTRAINT "connector_offers_connector_id_fkey" FOREIGN KEY ("connector_id") REFERENCES "connectors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "connector_offers" ADD CONSTRAINT "connector_offers_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- An org a connector is already switched on for was chosen by an instance admin (the command line was the
-- only way): it stays offered.
INSERT INTO "connector_offers" ("connector_id", "org_id", "offered_at")
SELECT "connector_id", "org_id", "enabled_at" FROM "org_connectors";
