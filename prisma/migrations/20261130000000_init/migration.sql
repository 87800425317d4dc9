-- CreateEnum
CREATE TYPE "plan_status" AS ENUM ('active', 'inactive');

-- CreateEnum
CREATE TYPE "app_policy" AS ENUM ('open', 'approved');

-- CreateEnum
CREATE TYPE "role" AS ENUM ('owner', 'admin', 'member', 'viewer');

-- CreateEnum
CREATE TYPE "membership_status" AS ENUM ('active', 'deactivated');

-- CreateEnum
CREATE TYPE "client_registration" AS ENUM ('dynamic', 'metadata_document', 'admin');

-- CreateEnum
CREATE TYPE "client_decision" AS ENUM ('approved', 'blocked');

-- CreateEnum
CREATE TYPE "key_use" AS ENUM ('signing', 'cookie');

-- CreateTable
CREATE TABLE "people" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "password_hash" TEXT,
    "is_instance_admin" BOOLEAN NOT NULL DEFAULT false,
    "disabled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "people_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "organizations" (
    "id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "plan_status" "plan_status" NOT NULL DEFAULT 'active',
    "app_policy" "app_policy" NOT NULL DEFAULT 'open',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memberships" (
    "id" TEXT NOT NULL,
    "person_id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "role" "role" NOT NULL,
    "status" "membership_status" NOT NULL DEFAULT 'active',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "memberships_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "clients" (
    "client_id" TEXT NOT NULL,
    "registration" "client_registration" NOT NULL,
    "name" TEXT,
    "hostname" TEXT,
    "registered_ip" TEXT,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "disabled_at" TIMESTAMPTZ(3),
    "disabled_by_id" TEXT,

    CONSTRAINT "clients_pkey" PRIMARY KEY ("client_id")
);

-- CreateTable
CREATE TABLE "org_client_decisions" (
    "org_id" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "decision" "client_decision" NOT NULL,
    "decided_by_id" TEXT,
    "decided_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "org_client_decisions_pkey" PRIMARY KEY ("org_id","client_id")
);

-- CreateTable
CREATE TABLE "grants" (
    "id" TEXT NOT NULL,
    "person_id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "scopes" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "revoked_by_id" TEXT,
    "revoke_reason" TEXT,

    CONSTRAINT "grants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oidc_models" (
    "model" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "grant_id" TEXT,
    "uid" TEXT,
    "user_code" TEXT,
    "expires_at" TIMESTAMPTZ(3),
    "consumed_at" TIMESTAMPTZ(3),

    CONSTRAINT "oidc_models_pkey" PRIMARY KEY ("model","id")
);

-- CreateTable
CREATE TABLE "key_material" (
    "id" TEXT NOT NULL,
    "use" "key_use" NOT NULL,
    "algorithm" TEXT NOT NULL,
    "encrypted" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" TIMESTAMPTZ(3),

    CONSTRAINT "key_material_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tool_restrictions" (
    "org_id" TEXT NOT NULL,
    "tool_name" TEXT NOT NULL,
    "created_by_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tool_restrictions_pkey" PRIMARY KEY ("org_id","tool_name")
);

-- CreateTable
CREATE TABLE "audit_events" (
    "id" BIGSERIAL NOT NULL,
    "type" TEXT NOT NULL,
    "org_id" TEXT,
    "actor_person_id" TEXT,
    "client_id" TEXT,
    "grant_id" TEXT,
    "ip" TEXT,
    "data" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "mcp_calls" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "person_id" TEXT,
    "org_id" TEXT,
    "client_id" TEXT,
    "grant_id" TEXT,
    "method" TEXT,
    "tool_name" TEXT,
    "outcome" TEXT NOT NULL,
    "http_status" INTEGER NOT NULL,
    "latency_ms" INTEGER NOT NULL,
    "protocol_version" TEXT,
    "trace_id" TEXT,

    CONSTRAINT "mcp_calls_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "people_email_key" ON "people"("email");

-- CreateIndex
CREATE UNIQUE INDEX "organizations_slug_key" ON "organizations"("slug");

-- CreateIndex
CREATE INDEX "memberships_org_id_idx" ON "memberships"("org_id");

-- CreateIndex
CREATE UNIQUE INDEX "memberships_person_id_org_id_key" ON "memberships"("person_id", "org_id");

-- CreateIndex
CREATE INDEX "clients_first_seen_at_idx" ON "clients"("first_seen_at");

-- CreateIndex
CREATE INDEX "org_client_decisions_client_id_idx" ON "org_client_decisions"("client_id");

-- CreateIndex
CREATE INDEX "grants_person_id_idx" ON "grants"("person_id");

-- CreateIndex
CREATE INDEX "grants_org_id_client_id_idx" ON "grants"("org_id", "client_id");

-- CreateIndex
CREATE INDEX "grants_client_id_idx" ON "grants"("client_id");

-- CreateIndex
CREATE INDEX "oidc_models_grant_id_idx" ON "oidc_models"("grant_id");

-- CreateIndex
CREATE INDEX "oidc_models_uid_idx" ON "oidc_models"("uid");

-- CreateIndex
CREATE INDEX "oidc_models_user_code_idx" ON "oidc_models"("user_code");

-- CreateIndex
CREATE INDEX "oidc_models_expires_at_idx" ON "oidc_models"("expires_at");

-- CreateIndex
CREATE INDEX "key_material_use_created_at_idx" ON "key_material"("use", "created_at");

-- CreateIndex
CREATE INDEX "audit_events_org_id_created_at_idx" ON "audit_events"("org_id", "created_at");

-- CreateIndex
CREATE INDEX "audit_events_type_created_at_idx" ON "audit_events"("type", "created_at");

-- CreateIndex
CREATE INDEX "mcp_calls_org_id_at_idx" ON "mcp_calls"("org_id", "at");

-- CreateIndex
CREATE INDEX "mcp_calls_at_idx" ON "mcp_calls"("at");

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "people"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "org_client_decisions" ADD CONSTRAINT "org_client_decisions_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "org_client_decisions" ADD CONSTRAINT "org_client_decisions_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "clients"("client_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "grants" ADD CONSTRAINT "grants_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "people"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "grants" ADD CONSTRAINT "grants_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "grants" ADD CONSTRAINT "grants_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "clients"("client_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tool_restrictions" ADD CONSTRAINT "tool_restrictions_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE SET NULL ON UPDATE CASCADE;
