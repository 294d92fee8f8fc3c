/** One SQL statement with its bound values, in the placeholder style of the database it was built for. */
export interface Statement {
  sql: string;
  params: unknown[];
}
