import { displayName } from "../src/graph/display-name";

/** An artifact's box shows a long path from its end: what tells two files of one store apart. */
describe("an artifact's name on its box", () => {
  test("a name that fits is shown whole, a long one without a separator too (the box cuts it)", () => {
    expect(displayName("sales_2026.csv")).toBe("sales_2026.csv");
    expect(displayName("a".repeat(60))).toBe("a".repeat(60));
  });

  test("a long path shows its last segments that fit, after …/, and always the file's own name", () => {
    expect(displayName("s3://bucket/warehouse/orders/date=2026-11-02/part-0000.parquet")).toBe("…/part-0000.parquet");
    expect(displayName("s3://bucket/warehouse/orders/d=11-02/part-0.parquet")).toBe("…/d=11-02/part-0.parquet");
    expect(displayName("s3://analytics-prod-eu-west-1/warehouse/finance/revenue_recognition_adjustments_final_v3.parquet")).toBe("…/revenue_recognition_adjustments_final_v3.parquet");
    for (const name of ["raw/customers/2026/11/customer_orders_export.csv", "s3://b/x/y/z/0123456789/0123456789.txt"]) expect(displayName(name).length).toBeLessThanOrEqual(28);
  });

  test("a directory keeps its trailing separator; a Windows path its own separator", () => {
    expect(displayName("s3://bucket/warehouse/finance/monthly_close/")).toBe("…/finance/monthly_close/");
    expect(displayName("C:\\data\\exports\\2026\\november\\ledger_final.csv")).toBe("…\\november\\ledger_final.csv");
  });
});
