// An axe-core scan of the page as it is now: the test fails on any serious or critical violation, and
// the message names each rule and the elements that break it; and no Content-Security-Policy violation.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { cspViolations } from './browser';

export async function expectAccessible(page: Page, what: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  const blocking = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  const report = blocking.map(
    (violation) =>
      `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes
        .map((node) => node.target.join(' '))
        .slice(0, 5)
        .join(', ')}`,
  );
  expect(report, `accessibility violations on ${what}`).toEqual([]);
  // Every page scanned here also ran with no script or style blocked by its Content-Security-Policy.
  expect(await cspViolations(page), `Content-Security-Policy violations on ${what}`).toEqual([]);
}
