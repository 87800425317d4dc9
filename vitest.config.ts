import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '@': fileURLToPath(new URL('.', import.meta.url)) } },
  test: {
    include: ['tests/**/*.test.ts'],
    // Builds the app once (into .next-test) before any test that boots the real server.
    globalSetup: ['tests/helpers/global-setup.ts'],
    // Each integration file boots its own server (≈ 0.5 GB): two at a time suit a 2-core machine.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    reporters: ['default', './tests/helpers/summary-reporter.ts'],
  },
});
