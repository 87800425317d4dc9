-- The console: sign-in sessions a person can see and end, account lockout an admin can lift,
-- one-time set-password links (invitations and resets), and clients an org owner registers by hand.

-- CreateEnum
CREATE TYPE "password_link_purpose" AS ENUM ('invite', 'reset');

-- AlterTable
ALTER TABLE "people" ADD COLUMN "failed_sign_ins" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "locked_until" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "clients" ADD COLUMN "owner_org_id" TEXT;

-- CreateTable
CREATE TABLE "sign_in_sessions" (
    "id" TEXT NOT NULL,
    "person_id" TEXT NOT NULL,
    "ip" TEXT,
    "user_agent" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_at" TIMESTAMPTZ(3),
    "end_reason" TEXT,

    CONSTRAINT "sign_in_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "password_links" (
    "token_hash" TEXT NOT NULL,
    "person_id" TEXT NOT NULL,
    "purpose" "password_link_purpose" NOT NULL,
    "org_id" TEXT,
    "created_by_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),

    CONSTRAINT "password_links_pkey" PRIMARY KEY ("token_hash")
);

-- CreateIndex
CREATE INDEX "sign_in_sessions_person_id_idx" ON "sign_in_sessions"("person_id");

-- CreateIndex
CREATE INDEX "sign_in_sessions_expires_at_idx" ON "sign_in_sessions"("expires_at");

-- CreateIndex
CREATE INDEX "password_links_person_id_idx" ON "password_links"("person_id");

-- CreateIndex
CREATE INDEX "password_links_expires_at_idx" ON "password_links"("expires_at");

-- CreateIndex
CREATE INDEX "clients_owner_org_id_idx" ON "clients"("owner_org_id");

-- CreateIndex
CREATE INDEX "audit_events_actor_person_id_created_at_idx" ON "audit_events"("actor_person_id", "created_at");

-- CreateIndex
CREATE INDEX "mcp_calls_org_id_client_id_at_idx" ON "mcp_calls"("org_id", "client_id", "at");

-- AddForeignKey
ALTER TABLE "clients" ADD CONSTRAINT "clients_owner_org_id_fkey" FOREIGN KEY ("owner_org_id") REFERENCES "organizations"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sign_in_sessions" ADD CONSTRAINT "sign_in_sessions_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "people"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "password_links" ADD CONSTRAINT "password_links_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "people"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "password_links" ADD CONSTRAINT "password_links_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE SET NULL ON UPDATE CASCADE;
