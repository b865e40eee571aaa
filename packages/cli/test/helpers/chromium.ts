/**
 * Debian's Chromium through playwright-core, as the console tests drive it (`CHROMIUM_PATH` overrides
 * the binary), and a page that records its errors.
 */
import { existsSync } from "node:fs"
import { type Browser, chromium, type Page } from "playwright-core"

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

/** Launches headless Chromium, no network beyond what the page asks for. */
export const launchChromium = (): Promise<Browser> => {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH`)
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  })
}

/** A new page whose uncaught errors and console errors are pushed to `errors`. */
export const pageWithErrors = async (browser: Browser, errors: string[]): Promise<Page> => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  page.on("pageerror", (error) => errors.push(error.message))
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text())
  })
  return page
}
