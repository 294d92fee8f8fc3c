/**
 * One result set carrying rows of several kinds (told apart by the "row" column), built as SELECTs
 * joined by UNION ALL: each branch fills the columns it has and leaves NULL in the others; the first
 * branch casts its NULLs so PostgreSQL knows every column's type.
 */
export class UnionRows<C extends string> {
  private branches = 0;
  private readonly columns: C[];

  constructor(private readonly types: Record<C, string>) {
    this.columns = Object.keys(types) as C[];
  }

  /** " UNION ALL SELECT …" (plain "SELECT …" for the first branch): append its FROM and WHERE after it. */
  select(values: Partial<Record<C, string>>): string {
    const first = this.branches++ === 0;
    return (
      (first ? "SELECT " : " UNION ALL SELECT ") +
      this.columns
        .map((column) => {
          const value = values[column];
          if (!first) return value ?? "NULL";
          return value === undefined ? `CAST(NULL AS ${this.types[column]}) AS "${column}"` : `${value} AS "${column}"`;
        })
        .join(", ")
    );
  }
}

/** Where each named column is in a result (-1 when absent). */
export function columnIndex<C extends string>(names: readonly string[], columns: readonly C[]): Record<C, number> {
  return Object.fromEntries(columns.map((column) => [column, names.indexOf(column)])) as Record<C, number>;
}
