// Headless Chromium for the browser tests: Debian's build (or CHROMIUM_PATH),
// driven by playwright-core, and one way to read what a test page computed.
// A page leaves `window.outcome = { ok }` or `{ error }`; page errors,
// console errors and HTTP errors fail it.

import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Launch headless Chromium; a missing binary is an error that says how to install it. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (node scripts/setup.mjs does), or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, chromiumSandbox: false, args: CHROMIUM_ARGS, timeout: 60_000 });
}

/** What a page loaded over the network: URL, status and content type of each response. */
export interface Loaded {
  url: string;
  status: number;
  type: string;
}

/**
 * Load `url` in a fresh context and wait (bounded) for `window.outcome`;
 * returns its `ok` value and every response the page received. A page error
 * fails at once; console errors and HTTP errors fail after.
 */
export async function pageOutcome<T>(browser: Browser, url: string, options: { expectedFailures?: RegExp } = {}): Promise<{ ok: T; loaded: Loaded[] }> {
  const context = await browser.newContext();
  try {
    const tab = await context.newPage();
    const problems: string[] = [];
    const loaded: Loaded[] = [];
    const failed = new Promise<never>((_, reject) => {
      tab.on('pageerror', (error) => reject(new Error(`${url}: ${String(error)}`)));
      tab.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      tab.on('response', (response) => {
        loaded.push({ url: response.url(), status: response.status(), type: response.headers()['content-type'] ?? '' });
        if (response.status() >= 400) problems.push(`HTTP ${response.status()} for ${response.url()}`);
      });
    });
    await tab.goto(url, { timeout: 30_000 });
    const done = tab.waitForFunction(() => (window as unknown as { outcome?: unknown }).outcome !== undefined, undefined, { timeout: 60_000 });
    await Promise.race([done, failed]).catch((error: Error) => {
      throw new Error(`${error.message}${problems.length ? `; console errors: ${problems.join(' | ')}` : ''}`);
    });
    const result = (await tab.evaluate(() => (window as unknown as { outcome: unknown }).outcome)) as { ok?: T; error?: string };
    expect(result.error, url).toBeUndefined();
    // A page that tests a failed fetch names it: its HTTP error and the console's report of it.
    const expected = (problem: string) => options.expectedFailures?.test(problem) === true;
    const unexpected = problems.filter((problem) => !expected(problem));
    expect(unexpected, `${url}: console errors`).toEqual([]);
    return { ok: result.ok!, loaded };
  } finally {
    await context.close();
  }
}
