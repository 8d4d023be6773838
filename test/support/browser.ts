import { chromium, type Browser, type Page } from "playwright-core";
import { CHROMIUM_ARGS } from "./chromium.js";

/**
 * Launches a headless Chromium through playwright-core.
 *
 * @param executablePath the binary, normally from `findChromium()` (test/support/chromium.ts)
 */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}

/**
 * A new page that may only reach `origin`: every other request is aborted and its URL recorded
 * in `foreign`; the paths fetched from `origin` are recorded in `local`.
 *
 * @example
 * const { page, foreign } = await confinedPage(browser, stack.baseUrl);
 * await page.goto(`${stack.baseUrl}/docs`);
 * assert.deepEqual(foreign, []);
 */
export async function confinedPage(
  browser: Browser,
  origin: string,
): Promise<{ page: Page; foreign: string[]; local: string[] }> {
  const page = await browser.newPage();
  const foreign: string[] = [];
  const local: string[] = [];
  await page.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.origin === origin) {
      local.push(url.pathname);
      return route.continue();
    }
    foreign.push(url.href);
    return route.abort();
  });
  return { page, foreign, local };
}
