-- The call log of connector tools (docs/connectors.md, Observed): which connector a call went to, and how long
-- the upstream took beside Gatehouse's own latency. The slug, not the id: it is immutable and outlives a
-- removed connector, so old rows still say where they went.

-- AlterTable
ALTER TABLE "mcp_calls" ADD COLUMN "connector" TEXT,
ADD COLUMN "upstream_latency_ms" INTEGER;
