import { generateTokenSecret } from "../../../src/auth";
import { accessibilityViolations } from "../support/axe";
import { type Browser, launchBrowser } from "../support/browser";
import { type ExplorerServer, startExplorerServer } from "../support/explorer-server";
import { gql, type Seeded, seedStore } from "../support/seed-store";

/**
 * The Explorer on a server that requires tokens: the page itself loads without one, asks for one, keeps a
 * pasted token for the tab only, and shows a value the token has no clearance for as redacted — never the value.
 */
describe("the Explorer in a browser (tokens)", () => {
  const adminToken = generateTokenSecret();
  let server: ExplorerServer;
  let browser: Browser;
  let seeded: Seeded;
  let readToken: string;

  beforeAll(async () => {
    server = await startExplorerServer({ PROVGRAPH_BOOTSTRAP_TOKEN: adminToken });
    seeded = await seedStore({ url: server.graphqlUrl, token: adminToken });
    const created = await gql({ url: server.graphqlUrl, token: adminToken }, `mutation { createApiToken(input: { name: "analyst", scopes: ["read"] }) { token } }`);
    readToken = created.createApiToken.token;
    browser = await launchBrowser();
  }, 400_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("without a token the page explains UNAUTHENTICATED; a pasted read token without clearance sees the redaction marker, not the value", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.origin}/explorer/graph?root=${seeded.extract}`);
    const notice = page.locator('[role="alert"][data-code="UNAUTHENTICATED"]');
    await notice.waitFor();
    expect(await notice.innerText()).toContain("Paste one with the Token button");
    expect(await accessibilityViolations(page)).toEqual([]);
    await browser.screenshot(page, "unauthenticated");

    await page.getByRole("button", { name: "Token…" }).click();
    await page.getByLabel("API token").fill(readToken);
    await page.getByRole("button", { name: "Use" }).click();
    await page.waitForLoadState("load");
    expect(await page.evaluate(() => sessionStorage.getItem("provgraph.explorer.token"))).toBe(readToken);
    const root = page.locator(".react-flow__node", { has: page.locator(".box-title", { hasText: /^sales_2026\.csv$/ }) });
    await root.waitFor();
    expect(await root.locator(".redacted-mark").innerText()).toMatch(/redacted/i);
    await root.click();
    await page.getByTestId("redacted").waitFor();
    expect(await page.getByTestId("details-panel").innerText()).not.toContain("ana@example.com");
    expect(await page.content()).not.toContain("ana@example.com");
    // The redaction marker and the token's chip are held to the same contrast and naming rules as the rest.
    expect(await accessibilityViolations(page)).toEqual([]);
    await browser.screenshot(page, "redacted");

    // The token lives in this tab only: a new tab starts without it.
    const other = await browser.newPage();
    await other.goto(`${server.origin}/explorer/`);
    expect(await other.evaluate(() => sessionStorage.getItem("provgraph.explorer.token"))).toBeNull();
    await other.close();
    await page.close();
  });

  test("no request left loopback", () => {
    expect(browser.blocked).toEqual([]);
    // The one expected refusal: the page's first request, before the token was pasted.
    expect(browser.errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
  });
});
