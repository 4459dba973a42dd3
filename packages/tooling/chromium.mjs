// Headless Debian Chromium through playwright-core (no downloaded browser),
// for the dashboard's check, the Chromium benchmark and the soak run. Node only.

import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless flags for Debian's chromium in a sandbox-less container. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Launch Chromium (playwright-core gives it a fresh temporary --user-data-dir). */
export function launchChromium({ extraArgs = [] } = {}) {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, chromiumSandbox: false, args: [...CHROMIUM_ARGS, ...extraArgs] });
}
