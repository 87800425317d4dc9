-- Decisions on apps instead of registrations (docs/protocol.md §7). Every person who connects a
-- self-registering client makes a registration of their own, so a decision on one registration was
-- escaped by registering again. An org's approve or block now names the app; an instance admin can block
-- an app everywhere. A block covers every app that shares a redirect host or private-use scheme with the
-- blocked one (apps.marks); an approval covers only the exact app (lib/apps/decisions.ts).

-- CreateTable
CREATE TABLE "org_app_decisions" (
    "org_id" TEXT NOT NULL,
    "app_id" TEXT NOT NULL,
    "decision" "client_decision" NOT NULL,
    "decided_by_id" TEXT,
    "decided_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "org_app_decisions_pkey" PRIMARY KEY ("org_id","app_id")
);

-- AlterTable: an instance-wide block
ALTER TABLE "apps" ADD COLUMN "blocked_at" TIMESTAMPTZ(3),
ADD COLUMN "blocked_by_id" TEXT;

-- CreateIndex
CREATE INDEX "org_app_decisions_app_id_idx" ON "org_app_decisions"("app_id");

-- CreateIndex
CREATE INDEX "apps_blocked_at_idx" ON "apps"("blocked_at");

-- AddForeignKey
ALTER TABLE "org_app_decisions" ADD CONSTRAINT "org_app_decisions_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "org_app_decisions" ADD CONSTRAINT "org_app_decisions_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Move the decisions on registrations that already have an app onto it. Where the registrations of one
-- app carry different decisions, the block wins; among equals, the latest. Registrations without an app
-- yet (it is assigned at start-up, from metadata SQL cannot read) are moved by lib/apps/decisions.ts
-- moveClientDecisions when start-up has given them one; org_client_decisions is no longer written.
INSERT INTO "org_app_decisions" ("org_id", "app_id", "decision", "decided_by_id", "decided_at")
SELECT DISTINCT ON (d."org_id", c."app_id") d."org_id", c."app_id", d."decision", d."decided_by_id", d."decided_at"
  FROM "org_client_decisions" d
  JOIN "clients" c ON c."client_id" = d."client_id"
 WHERE c."app_id" IS NOT NULL
 ORDER BY d."org_id", c."app_id", (d."decision" = 'blocked') DESC, d."decided_at" DESC;

DELETE FROM "org_client_decisions" d
 USING "clients" c
 WHERE c."client_id" = d."client_id" AND c."app_id" IS NOT NULL;
