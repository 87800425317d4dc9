import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const alias = { '@': fileURLToPath(new URL('.', import.meta.url)) };

export default defineConfig({
  resolve: { alias },
  test: {
    reporters: ['default', './tests/helpers/summary-reporter.ts'],
    // Each integration file boots its own server (≈ 0.5 GB): two at a time suit a 2-core machine.
    maxWorkers: 2,
    projects: [
      {
        // Pure modules, in process: no build, seconds (`npx vitest run --project unit`).
        resolve: { alias },
        test: { name: 'unit', include: ['tests/unit/**/*.test.ts'] },
      },
      {
        // Everything that boots the real server or a browser: the app is built once (into .next-test) first.
        resolve: { alias },
        test: {
          name: 'server',
          include: ['tests/**/*.test.ts'],
          exclude: ['tests/unit/**'],
          globalSetup: ['tests/helpers/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
