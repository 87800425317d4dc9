// Debian's Chromium driven by playwright-core. Browser tests run wherever /usr/bin/chromium exists
// (CI installs it); elsewhere they are skipped with the reason printed.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startServer, type RunningServer, type StartOptions } from './server';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM_PATH);

if (!HAS_CHROMIUM) {
  console.log(`Browser tests skipped: no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium).`);
}

/**
 * Runs in every page before its own scripts: records each Content-Security-Policy violation, so that a
 * page whose scripts the policy blocks fails its checks (see `cspViolations`).
 */
const RECORD_CSP_VIOLATIONS = `
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (event) => {
    window.__cspViolations.push(event.violatedDirective + ' ' + (event.blockedURI || 'inline'));
  });
`;

export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  // Every context and page the tests open records policy violations.
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    await context.addInitScript(RECORD_CSP_VIOLATIONS);
    return context;
  };
  // As Playwright's own newPage: a context of its own, closed with the page.
  browser.newPage = async (options) => {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    page.once('close', () => void context.close());
    return page;
  };
  return browser;
}

/** The Content-Security-Policy violations the page has seen since it loaded. */
export async function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __cspViolations?: string[] }).__cspViolations ?? []);
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
