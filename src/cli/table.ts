/** Rows under a header, columns padded to their widest cell, two spaces apart (as `ls -l` and `kubectl get` print). */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const table = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...table.map((row) => (row[column] ?? "").length)));
  return table.map((row) => row.map((cell, column) => (cell ?? "").padEnd(widths[column])).join("  ").trimEnd()).join("\n");
}
