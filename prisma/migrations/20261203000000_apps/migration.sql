-- Apps: what people recognise ("Claude", "Cursor"), as opposed to client registrations, of which every
-- person who connects a self-registering client makes one. Each client row points to its app
-- (lib/apps/identity.ts says how registrations are grouped); the rows are filled at start-up from the
-- provider's stored metadata (lib/apps/backfill.ts), which SQL alone cannot read the way the application does.

-- CreateTable
CREATE TABLE "apps" (
    "id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "display_name" TEXT NOT NULL,
    "evidence" JSONB NOT NULL DEFAULT '{}',
    "marks" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "registration_count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "apps_pkey" PRIMARY KEY ("id")
);

-- AlterTable
ALTER TABLE "clients" ADD COLUMN "app_id" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "apps_key_key" ON "apps"("key");

-- CreateIndex: what a block on hosts or schemes will look up (marks && ARRAY[...])
CREATE INDEX "apps_marks_idx" ON "apps" USING GIN ("marks");

-- CreateIndex
CREATE INDEX "apps_last_seen_at_idx" ON "apps"("last_seen_at");

-- CreateIndex
CREATE INDEX "clients_app_id_idx" ON "clients"("app_id");

-- AddForeignKey
ALTER TABLE "clients" ADD CONSTRAINT "clients_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE SET NULL ON UPDATE CASCADE;
