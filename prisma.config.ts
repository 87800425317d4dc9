// Prisma 7 reads no .env by itself; load it so `prisma` commands see DATABASE_URL like the app does.
import 'dotenv/config';
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: {
    path: 'prisma/migrations',
    seed: 'tsx prisma/seed.ts',
  },
  datasource: {
    // Only Prisma's own CLI uses this (e.g. `prisma migrate deploy` on a machine that can download the
    // schema engine). Gatehouse itself connects through driver adapters, see lib/db/client.ts.
    url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/gatehouse',
  },
});
