import type { Page } from "playwright-core";
import { accessibilityViolations } from "../support/axe";
import { type Browser, launchBrowser } from "../support/browser";
import { type ExplorerServer, startExplorerServer } from "../support/explorer-server";
import { ingestHop, recordRun, type Seeded, seedStore } from "../support/seed-store";

/**
 * Every view of the Explorer, in the states a user brings it to and in both colour schemes, audited by
 * axe-core against WCAG 2.2 A and AA and axe's best practices: contrast (hovered controls too), headings,
 * names of controls, regions a keyboard can reach. A rule broken anywhere fails the test with the element and why.
 */
describe("the Explorer is accessible (axe-core, WCAG 2.2 AA)", () => {
  let server: ExplorerServer;
  let browser: Browser;
  let seeded: Seeded;
  let page: Page;

  beforeAll(async () => {
    server = await startExplorerServer();
    seeded = await seedStore({ url: server.graphqlUrl });
    browser = await launchBrowser();
  }, 400_000);

  beforeEach(async () => {
    page = await browser.newPage();
  });

  afterEach(async () => {
    await page?.close();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** Opens a view and waits until nothing in it is loading any more. */
  const open = async (path: string, ready: string) => {
    await page.goto(server.origin + path);
    await page.locator(ready).first().waitFor();
    await page.waitForFunction(() => document.querySelectorAll(".loading").length === 0);
  };

  const states: [string, () => Promise<void>][] = [
    ["the home page, with the search box's suggestions open", async () => {
      await open("/explorer/", "h1");
      await page.click("#search-input");
      await page.keyboard.type("sales");
      await page.locator('[role="option"]').first().waitFor();
      await page.keyboard.press("ArrowDown");
    }],
    ["the search results page", () => open("/explorer/search?q=sales", ".result-group")],
    ["a neighbourhood with an artifact's details open", () => open(`/explorer/graph?root=${seeded.extract}&sel=${seeded.extract}`, '[data-testid="details-panel"] .facts')],
    ["a neighbourhood with a run's details open", () => open(`/explorer/graph?root=${seeded.publishRunId}&sel=${seeded.publishRunId}`, '[data-testid="details-panel"] .execution')],
    ["a dataset's columns with a tagged column's details open", () => open(`/explorer/graph?root=${seeded.rawOrders}&cols=1&sel=${encodeURIComponent(`col:${seeded.rawOrders}:customer_email`)}`, '[data-testid="details-panel"] .facts')],
    ["a derivation path lit", () => open(`/explorer/graph?root=${seeded.extract}&depth=2&from=${seeded.extract}&to=${seeded.report}`, '[data-testid="path-status"]')],
    ["a pipeline's runs, stepped", () => open("/explorer/pipeline?name=reporting", ".react-flow__node")],
    ["a pipeline's steps", () => open("/explorer/pipeline?name=reporting&view=macro", ".react-flow__node")],
    ["a namespace's coverage", () => open("/explorer/coverage?ns=shop", '[data-testid="coverage"]')],
    ["an error: a root that is no id", () => open("/explorer/graph?root=art_nope", '[role="alert"]')],
    ["the token form, its Cancel button under the pointer", async () => {
      await open("/explorer/", "h1");
      await page.getByRole("button", { name: "Token…" }).click();
      await page.getByRole("button", { name: "Cancel" }).hover();
    }],
    ["a phone-sized screen with the live feed opened", async () => {
      await page.setViewportSize({ width: 390, height: 800 });
      await open("/explorer/", "h1");
      await page.locator(".feed-toggle").click();
      await page.locator(".feed-body").waitFor();
    }],
  ];

  // In the light scheme and the dark one (a system set to dark gets the dark stylesheet).
  test.each((["light", "dark"] as const).flatMap((scheme) => states.map(([name, reach]) => [`${name} (${scheme})`, scheme, reach] as const)))("%s", async (name, scheme, reach) => {
    await page.emulateMedia({ colorScheme: scheme });
    await reach();
    await browser.screenshot(page, `accessible ${name}`);
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  /** Tabs from the top of the page to the first box of a graph; answers its id. */
  const tabToABox = async () => {
    const focusedNode = () => page.evaluate(() => document.activeElement?.closest(".react-flow__node")?.getAttribute("data-id") ?? null);
    const trail: string[] = [];
    for (let i = 0; i < 40 && !(await focusedNode()); i++) {
      await page.keyboard.press("Tab");
      trail.push(await page.evaluate(() => `${document.activeElement?.tagName}.${document.activeElement?.className}`));
    }
    const id = await focusedNode();
    expect({ id, trail }).toEqual({ id: expect.any(String), trail });
    return id!;
  };

  test("a keyboard alone reaches a node of the graph and opens its details", async () => {
    await open(`/explorer/graph?root=${seeded.extract}`, ".react-flow__node");
    const id = await tabToABox();
    // The box a keyboard is on is ringed (React Flow's own outline is hidden).
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!.firstElementChild!).outlineStyle)).toBe("solid");
    await page.keyboard.press("Enter");
    await page.waitForURL((url) => url.searchParams.get("sel") === id);
    await page.getByTestId("details-panel").waitFor();
    expect(id).toBe(seeded.extract); // the root comes first
    // An arrow moves the selection upstream, to the run that made it, and the keyboard's focus goes with it.
    await page.keyboard.press("ArrowLeft");
    await page.waitForURL((url) => url.searchParams.get("sel")?.startsWith("run_") === true);
    const run = new URL(page.url()).searchParams.get("sel");
    await page.waitForFunction((run) => document.activeElement?.closest(".react-flow__node")?.getAttribute("data-id") === run, run);
    expect(await page.getByTestId("details-panel").locator("h2").innerText()).toBe("extract");
  });

  test("a keyboard alone opens the neighbourhood of a pipeline's box, as a click does", async () => {
    await open("/explorer/pipeline?name=reporting", ".react-flow__node");
    await tabToABox();
    await page.keyboard.press("Enter");
    await page.waitForURL((url) => url.pathname === "/explorer/graph" && !!url.searchParams.get("root"));
  });

  test("asked for less motion, a run arriving live is outlined without pulsing, in the graph and in the feed", async () => {
    await page.emulateMedia({ reducedMotion: "reduce" });
    await open(`/explorer/graph?root=${seeded.clean}`, ".react-flow__node");
    await page.waitForSelector(".live-dot.live");
    await page.locator(".feed-toggle").click();
    await recordRun({ url: server.graphqlUrl }, "profile", { data: [seeded.clean] }, { profile: [{ name: "sales_2026_clean_profile.json" }] });
    const fresh = page.locator(".box.fresh").first();
    await fresh.waitFor();
    await page.locator(".feed-item").first().waitFor();
    expect(await fresh.evaluate((e) => getComputedStyle(e).animationName)).toBe("none");
    expect(await page.locator(".feed-item").first().evaluate((e) => getComputedStyle(e).animationName)).toBe("none");
  });

  test("the paging warning is a modal dialog: the keyboard stays in it, Esc cancels it alone, the focus goes back to the +N", async () => {
    const wide = await recordRun({ url: server.graphqlUrl }, "extract", {}, { raw: Array.from({ length: 120 }, (_, i) => ({ name: `wide_part_${String(i).padStart(3, "0")}.csv` })) });
    const root = wide.outputs[0];
    await open(`/explorer/graph?root=${root}&sel=${root}`, ".react-flow__node");
    const more = page.locator('[data-testid="expand-downstream"]', { hasText: "+119" });
    await more.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("alertdialog");
    await dialog.waitFor();
    expect(await dialog.locator("h2").innerText()).toBe("119 downstream neighbours");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("paging-first");
    expect(await accessibilityViolations(page)).toEqual([]);
    await browser.screenshot(page, "accessible paging warning");
    // Tab never lands on the page behind the dialog (past its last button the browser's own UI may take it).
    for (let i = 0; i < 7; i++) {
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement === document.body || !!document.activeElement?.closest("dialog"))).toBe(true);
    }
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("expand-downstream");
    expect(new URL(page.url()).searchParams.get("sel")).toBe(root); // the graph's Esc (clear the selection) did not run
    // A click on the backdrop cancels too; the choice of a first page draws a page more.
    await more.click();
    await dialog.waitFor();
    await page.mouse.click(5, 400);
    await dialog.waitFor({ state: "detached" });
    await more.click();
    await page.getByTestId("paging-first").click();
    // The run's first page of 50 holds the root already drawn: 49 more, 70 still hidden.
    await page.locator('[data-testid="expand-downstream"]', { hasText: "+70" }).waitFor();
  });

  /** What in `selector` is wider than its box and not scrolled on purpose: long names running out. */
  const overflowingIn = (selector: string) =>
    page.locator(selector).evaluate((root) =>
      [root, ...root.querySelectorAll("*")].filter((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== "auto").map((e) => `${e.tagName} ${e.textContent?.slice(0, 40)}`),
    );

  test("long names reflow in the details panel, the results page and the coverage table: nothing runs out or scrolls sideways (WCAG 1.4.10)", async () => {
    const field = "column_with_an_extremely_long_name_".repeat(4);
    const name = `warehouse/${"verylongsegment_".repeat(20)}part-000.parquet`;
    // `unmapped` has no lineage: the coverage lists it, with its dataset's name.
    const id = await ingestHop({ url: server.graphqlUrl }, "long", "long_names", { name: "source", fields: [field] }, { name, fields: [field, "unmapped"] }, [[field, "source", field, "DIRECT", "IDENTITY"]]);
    await open(`/explorer/graph?root=${id}&cols=1&sel=${encodeURIComponent(`col:${id}:${field}`)}`, '[data-testid="details-panel"] .facts');
    expect(await overflowingIn(".details-body")).toEqual([]);
    expect(await page.locator(".details-body").evaluate((body) => body.scrollWidth <= body.clientWidth)).toBe(true);
    for (const [path, ready] of [["/explorer/search?q=verylongsegment", ".result-group"], ["/explorer/coverage?ns=long", ".table"]]) {
      await open(path, ready);
      expect({ path, overflowing: await overflowingIn(".app-main") }).toEqual({ path, overflowing: [] });
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    }
  });

  test.each(["light", "dark"] as const)("edges stand 3:1 against the canvas and their labels 4.5:1 against their fill (WCAG 1.4.11, 1.4.3), %s scheme", async (scheme) => {
    await page.emulateMedia({ colorScheme: scheme });
    const measured: string[] = [];
    // Column edges (DIRECT, INDIRECT, labelled; with a column chosen, the others dimmed), a run's used and
    // generated edges, a co-input group.
    const column = encodeURIComponent(`col:${seeded.rawOrders}:customer_email`);
    for (const path of [`/explorer/graph?root=${seeded.rawOrders}&cols=1&depth=2`, `/explorer/graph?root=${seeded.rawOrders}&cols=1&sel=${column}`, `/explorer/graph?root=${seeded.extract}&depth=2`]) {
      await open(path, ".react-flow__edge");
      measured.push(
        ...(await page.evaluate(() => {
          const rgb = (colour: string) => colour.match(/[\d.]+/g)!.slice(0, 3).map(Number);
          const luminance = (colour: string) => {
            const [r, g, b] = rgb(colour).map((c) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4));
            return 0.2126 * r + 0.7152 * g + 0.0722 * b;
          };
          const ratio = (a: string, b: string) => {
            const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
            return (x + 0.05) / (y + 0.05);
          };
          const canvas = getComputedStyle(document.documentElement).backgroundColor;
          const surface = getComputedStyle(document.querySelector(".box, .column-row")!).backgroundColor;
          const low: string[] = [];
          for (const edge of document.querySelectorAll<SVGPathElement>("path.react-flow__edge-path")) {
            const stroke = getComputedStyle(edge).stroke;
            if (ratio(stroke, canvas) < 3) low.push(`edge ${stroke} on ${canvas}: ${ratio(stroke, canvas).toFixed(2)}`);
          }
          for (const text of document.querySelectorAll<SVGTextElement>(".react-flow__edge-text")) {
            const fill = getComputedStyle(text).fill;
            if (ratio(fill, surface) < 4.5) low.push(`label ${text.textContent} ${fill} on ${surface}: ${ratio(fill, surface).toFixed(2)}`);
            // A dimmed edge's label is still text: faded by an opacity, its contrast is gone.
            let opacity = 1;
            for (let e: Element | null = text; e && e.tagName !== "svg"; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
            if (opacity < 1) low.push(`label ${text.textContent} faded to opacity ${opacity.toFixed(2)}`);
          }
          return low;
        })),
      );
    }
    expect(measured).toEqual([]);
  });

  test("no page error and no request off loopback", () => {
    expect(browser.errors).toEqual([]);
    expect(browser.blocked).toEqual([]);
  });
});
