/** @jest-environment jsdom */
import { act, fireEvent, render, screen } from "@testing-library/react";
import { ApiError } from "../src/api/api-error";
import { ErrorNotice } from "../src/components/ErrorNotice";
import { PagingWarning } from "../src/components/PagingWarning";
import { PinsTable } from "../src/components/PinsTable";
import { SearchBox } from "../src/components/SearchBox";
import { Stepper } from "../src/components/Stepper";
import { graphParamsOf, openParamOf } from "../src/routes/graph-params";

/** The Explorer's components as a user meets them (jsdom). */

const hit = (kind: string, id: string, label: string, start = 0, end = 3) => ({ kind, id, label, detail: null, rank: "PREFIX", highlights: [{ start, end }] });

describe("the search box", () => {
  beforeEach(() => {
    jest.useFakeTimers();
    window.history.replaceState(null, "", "/explorer/");
  });
  afterEach(() => jest.useRealTimers());

  test("suggests as you type, grouped by kind (datasets first), with the match marked; arrows and Enter open a hit", async () => {
    const fetchMock = jest.fn(async () => ({
      json: async () => ({ data: { autocomplete: [hit("ARTIFACT", "art_1", "sales.csv"), hit("DATASET", "art_2", "shop/sales"), hit("COLUMN", "col:art_2:sales_id", "shop/sales.sales_id", 11, 14)] } }),
    }));
    global.fetch = fetchMock as unknown as typeof fetch;
    render(<SearchBox />);
    const input = screen.getByRole("combobox");
    fireEvent.change(input, { target: { value: "sal" } });
    await act(async () => {
      jest.advanceTimersByTime(200);
    });
    const body = JSON.parse((fetchMock.mock.calls[0] as unknown as [string, RequestInit])[1].body as string);
    expect(body.variables).toEqual({ prefix: "sal", first: 12 });
    expect(screen.getAllByRole("group").map((g) => g.getAttribute("aria-label"))).toEqual(["Datasets", "Artifacts", "Columns"]);
    expect(screen.getAllByRole("option").map((o) => o.textContent)).toEqual(["shop/sales", "sales.csv", "shop/sales.sales_id"]);
    expect(screen.getAllByRole("option")[2].querySelector("mark")!.textContent).toBe("sal");
    fireEvent.keyDown(input, { key: "ArrowDown" });
    fireEvent.keyDown(input, { key: "ArrowDown" });
    expect(screen.getAllByRole("option")[1].getAttribute("aria-selected")).toBe("true");
    fireEvent.keyDown(input, { key: "Enter" });
    expect(window.location.pathname + window.location.search).toBe("/explorer/graph?root=art_1");
  });

  test("a typed API error is shown with its code and what to do", async () => {
    global.fetch = jest.fn(async () => ({ json: async () => ({ errors: [{ message: "the server is busy", extensions: { code: "OVERLOADED" } }] }), status: 503 })) as unknown as typeof fetch;
    render(<SearchBox />);
    fireEvent.change(screen.getByRole("combobox"), { target: { value: "x" } });
    await act(async () => {
      jest.advanceTimersByTime(200);
    });
    expect(screen.getByRole("listbox").textContent).toContain("OVERLOADED: the server is busy");
    expect(screen.getByRole("listbox").textContent).toContain("Try again in a moment");
  });
});

test("QUERY_TIMEOUT is explained with its budget and the field it names", () => {
  render(<ErrorNotice error={new ApiError("lineageGraph ran past its budget", "QUERY_TIMEOUT", "depth", { code: "QUERY_TIMEOUT", budgetMs: 2000 })} onRetry={() => undefined} />);
  const alert = screen.getByRole("alert");
  expect(alert.getAttribute("data-code")).toBe("QUERY_TIMEOUT");
  expect(alert.textContent).toContain("Budget: 2000 ms");
  expect(alert.textContent).toContain("Field: depth");
  expect(alert.textContent).toContain("Ask for less");
  expect(screen.getByRole("button", { name: "Try again" })).toBeTruthy();
});

describe("a run's replay pins", () => {
  const row = (name: string) => [...document.querySelectorAll("tr")].find((tr) => tr.querySelector("th")?.textContent?.includes(name))!;
  const pins = (inputVersions: unknown) => ({ inputVersions, codeVersion: "9f2c1e7", imageDigest: "sha256:4b1d", deterministic: true });

  test("an OpenLineage run's inputs are listed with how each version was resolved; one not pinned marks the row, as the evidence gate counts it", () => {
    const inputs = [
      { namespace: "shop", name: "orders", version: "v7", artifactId: "art_1", pinned: true, resolvedBy: "VERSION_FACET" },
      { namespace: "shop", name: "customers", version: "run_ab12", artifactId: "art_2", pinned: false, resolvedBy: "LATEST_KNOWN" },
    ];
    render(<PinsTable pins={pins(inputs)} />);
    expect(row("Input versions").className).toBe("missing");
    const items = [...row("Input versions").querySelectorAll("li")].map((li) => [li.className, li.textContent]);
    expect(items).toEqual([
      ["ok", "shop/orders v v7 pinned by its version facet"],
      ["missing", "shop/customers v run_ab12 not pinned: the newest version known when it ran"],
    ]);
    expect(row("Input versions").textContent).not.toContain("{");
  });

  test("every input pinned, or versions a client declared, mark the row pinned; none at all is missing", () => {
    const { unmount } = render(<PinsTable pins={pins([{ namespace: "shop", name: "orders", version: "v7", artifactId: "art_1", pinned: true, resolvedBy: "VERSION_FACET" }])} />);
    expect(row("Input versions").className).toBe("ok");
    unmount();
    const declared = render(<PinsTable pins={pins({ "sales.csv": "sha256:fc9f" })} />);
    expect(row("Input versions").className).toBe("ok");
    expect(row("Input versions").textContent).toContain("sales.csv sha256:fc9f");
    declared.unmount();
    render(<PinsTable pins={pins(null)} />);
    expect(row("Input versions").className).toBe("missing");
    expect(row("Input versions").textContent).toContain("not pinned");
  });
});

test("before drawing hundreds, the paging warning offers a first page, all, or nothing", () => {
  const choices: string[] = [];
  render(<PagingWarning count={437} side="downstream" pageSize={50} onPage={() => choices.push("page")} onAll={() => choices.push("all")} onCancel={() => choices.push("cancel")} />);
  expect(screen.getByRole("alertdialog").textContent).toContain("437 downstream neighbours");
  fireEvent.click(screen.getByText("Show the first 50"));
  fireEvent.click(screen.getByText("Show all 437"));
  fireEvent.click(screen.getByText("Cancel"));
  expect(choices).toEqual(["page", "all", "cancel"]);
});

test("the stepper moves through the stops: inputs, then each step", () => {
  const moves: number[] = [];
  const { rerender } = render(<Stepper steps={[1, 2, 3]} index={0} onChange={(i) => moves.push(i)} />);
  expect(screen.getByTestId("step-label").textContent).toBe("Inputs (0 of 3)");
  expect((screen.getByTestId("step-back") as HTMLButtonElement).disabled).toBe(true);
  fireEvent.click(screen.getByTestId("step-next"));
  rerender(<Stepper steps={[1, 2, 3]} index={3} onChange={(i) => moves.push(i)} />);
  expect(screen.getByTestId("step-label").textContent).toBe("Step 3 (3 of 3)");
  expect((screen.getByTestId("step-next") as HTMLButtonElement).disabled).toBe(true);
  fireEvent.click(screen.getByTestId("step-back"));
  expect(moves).toEqual([1, 2]);
});

test("the graph view's settings round-trip through the URL", () => {
  const params = new URLSearchParams("root=art_1,art_2&dir=UPSTREAM&depth=3&steps=1&cols=1&asOf=2026-01-01T00:00:00.000Z&sel=run_9&from=art_1&to=art_2");
  params.set("open", openParamOf([{ nodeId: "art_1", side: "UPSTREAM" }, { nodeId: "col:art_2:a%20b", side: "DOWNSTREAM" }])!);
  expect(graphParamsOf(params)).toEqual({
    roots: ["art_1", "art_2"],
    direction: "UPSTREAM",
    depth: 3,
    maxNodes: 200,
    stepBoundaryOnly: true,
    columns: true,
    asOf: "2026-01-01T00:00:00.000Z",
    selected: "run_9",
    pathFrom: "art_1",
    pathTo: "art_2",
    open: [
      { nodeId: "art_1", side: "UPSTREAM" },
      { nodeId: "col:art_2:a%20b", side: "DOWNSTREAM" },
    ],
  });
  expect(graphParamsOf(new URLSearchParams("root=x&depth=99&dir=SIDEWAYS&max=7"))).toMatchObject({ depth: 1, direction: "BOTH", maxNodes: 200 });
});
