// Screenshots of the main pages for docs/screenshots/ (shown in docs/console.md). Browser tests take them
// along their main path; they are written only by `npm run screenshots`, so an ordinary test run never
// changes the working tree.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

const DIRECTORY = join(import.meta.dirname, '..', '..', 'docs', 'screenshots');

export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.GATEHOUSE_SCREENSHOTS !== '1') return;
  mkdirSync(DIRECTORY, { recursive: true });
  await page.screenshot({ path: join(DIRECTORY, `${name}.png`), fullPage: true });
}
