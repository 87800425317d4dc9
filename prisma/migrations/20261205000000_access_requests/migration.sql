-- Requests for access (docs/protocol.md §7): a member who meets an app the org's "approved apps only"
-- policy refuses asks the org's admins to approve it. One row per org, app and person (asking again
-- while pending replaces the note; after a decline or an expiry it reopens the row); a pending request
-- expires 30 days after it was asked (lib/apps/requests.ts, swept by lib/oauth/sweeper.ts).

-- CreateEnum
CREATE TYPE "access_request_status" AS ENUM ('pending', 'approved', 'declined', 'expired');

-- CreateTable
CREATE TABLE "access_requests" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "app_id" TEXT NOT NULL,
    "person_id" TEXT NOT NULL,
    "client_id" TEXT,
    "note" TEXT,
    "status" "access_request_status" NOT NULL DEFAULT 'pending',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "decided_by_id" TEXT,
    "decided_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "access_requests_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "access_requests_org_id_app_id_person_id_key" ON "access_requests"("org_id", "app_id", "person_id");

-- CreateIndex
CREATE INDEX "access_requests_org_id_status_created_at_idx" ON "access_requests"("org_id", "status", "created_at");

-- CreateIndex
CREATE INDEX "access_requests_app_id_idx" ON "access_requests"("app_id");

-- CreateIndex
CREATE INDEX "access_requests_person_id_idx" ON "access_requests"("person_id");

-- CreateIndex
CREATE INDEX "access_requests_status_expires_at_idx" ON "access_requests"("status", "expires_at");

-- AddForeignKey
ALTER TABLE "access_requests" ADD CONSTRAINT "access_requests_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "access_requests" ADD CONSTRAINT "access_requests_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "access_requests" ADD CONSTRAINT "access_requests_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "people"("id") ON DELETE CASCADE ON UPDATE CASCADE;
