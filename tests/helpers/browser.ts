// Debian's Chromium driven by playwright-core. Browser tests run wherever /usr/bin/chromium exists
// (CI installs it); elsewhere they are skipped with the reason printed.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startServer, type RunningServer, type StartOptions } from './server';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM_PATH);

if (!HAS_CHROMIUM) {
  console.log(`Browser tests skipped: no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium).`);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * For a describe block: a fresh server and a Chromium, started before its tests and stopped after.
 * Read `.server` and `.browser` inside the tests.
 */
export function serverAndBrowser(options: StartOptions = { database: 'embedded' }): { server: RunningServer; browser: Browser } {
  const running = {} as { server: RunningServer; browser: Browser };
  beforeAll(async () => {
    [running.server, running.browser] = await Promise.all([startServer(options), launchChromium()]);
  });
  afterAll(async () => {
    await running.browser?.close();
    await running.server?.stop();
  });
  return running;
}
