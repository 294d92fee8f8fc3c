import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

/**
 * Every list a statement is built from must fit any statement: SQLite refuses an expression nested
 * more than 1,000 deep (an OR of 1,000 branches) and both databases a statement of more than 32,766
 * (SQLite) or 65,535 (PostgreSQL) bound values. So every `IN (…)` list, `{ in: … }` / `notIn` filter
 * and OR-chain built from a list in src/ and plugins/ is either cut into chunks by the helpers of
 * src/db/chunked-lists.ts (the site sits inside the function given to `inChunks`/`orChunks`), or
 * passed as one JSON parameter (src/db/json-list.ts: no list in the SQL at all), or carries a
 * `// bounded: <why>` comment on its statement naming what bounds it (a literal list, a documented
 * limit checked before it is built).
 */
const ROOT = path.resolve(__dirname, "../..");
const CHUNKING_CALLS = new Set(["inChunks", "orChunks"]);

interface Site {
  file: string;
  line: number;
  what: string;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "generated" || entry.name === "node_modules" ? [] : sourceFiles(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

/** A list whose length is fixed where it is written: an array literal of plain values, no spread. */
function isFixedList(node: ts.Expression): boolean {
  const inner = ts.isParenthesizedExpression(node) ? node.expression : ts.isAsExpression(node) ? node.expression : node;
  return ts.isArrayLiteralExpression(inner) && inner.elements.every((e) => !ts.isSpreadElement(e));
}

/** The text of a template or string right before an interpolation ends in an SQL list opener. */
const LIST_OPENER = /\b(?:IN|ANY)\s*\(\s*(?:VALUES\s*)?$/i;

/** A list bound as one JSON parameter (src/db/json-list.ts): no list in the statement's text. */
const isJsonList = (node: ts.Expression) => ts.isCallExpression(node) && ts.isIdentifier(node.expression) && ["jsonListSelect", "jsonListRows"].includes(node.expression.text);

function listSites(file: string): Site[] {
  const text = fs.readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const sites: Site[] = [];
  const add = (node: ts.Node, what: string) => {
    if (!isAccountedFor(source, node)) sites.push({ file: path.relative(ROOT, file), line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, what });
  };
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name)) {
      const name = node.name.text;
      if ((name === "in" || name === "notIn") && !isFixedList(node.initializer)) add(node, `{ ${name}: ${node.initializer.getText().slice(0, 60)} }`);
      if ((name === "OR" || name === "AND") && !isFixedList(node.initializer)) add(node, `${name}: ${node.initializer.getText().slice(0, 60)}`);
    }
    if (ts.isTemplateExpression(node)) {
      let before = node.head.text;
      for (const span of node.templateSpans) {
        if (LIST_OPENER.test(before) && !isJsonList(span.expression)) add(span.expression, `IN (\${${span.expression.getText().slice(0, 60)}})`);
        before = span.literal.text;
      }
    }
    if (ts.isCallExpression(node) && node.expression.getText() === "Prisma.join") add(node, node.getText().slice(0, 70));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sites;
}

/** Inside the function given to a chunking helper, or under a `// bounded:` comment (on its statement, or an enclosing one). */
function isAccountedFor(source: ts.SourceFile, site: ts.Node): boolean {
  for (let n: ts.Node | undefined = site; n && !ts.isSourceFile(n); n = n.parent) {
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && CHUNKING_CALLS.has(n.expression.text) && n.arguments.some((a) => a.pos <= site.pos && site.end <= a.end && (ts.isArrowFunction(a) || ts.isFunctionExpression(a)))) return true;
    const comments = [...(ts.getLeadingCommentRanges(source.text, n.getFullStart()) ?? []), ...(ts.getTrailingCommentRanges(source.text, n.getEnd()) ?? [])];
    if (comments.some((c) => /^\/\/\s*bounded:/.test(source.text.slice(c.pos, c.end)))) return true;
  }
  return false;
}

describe("lists built into SQL statements", () => {
  test("every IN list, `in` filter and OR-chain built from a list is chunked, a JSON parameter, or says what bounds it", () => {
    const unaccounted = [...sourceFiles(path.join(ROOT, "src")), ...sourceFiles(path.join(ROOT, "plugins"))].flatMap(listSites);
    expect(unaccounted.map((s) => `${s.file}:${s.line} ${s.what}`)).toEqual([]);
  });

  test("the scan finds an unchunked list (it can fail)", () => {
    const dir = fs.mkdtempSync(path.join(require("node:os").tmpdir(), "sql-lists-"));
    const file = path.join(dir, "example.ts");
    fs.writeFileSync(
      file,
      [
        "const a = await db.artifact.findMany({ where: { id: { in: ids } } });",
        "const b = await db.artifact.findMany({ where: { OR: pairs.map((p) => ({ datasetName: p })) } });",
        "const c = `SELECT 1 FROM t WHERE id IN (${ids.map(() => '?').join(', ')})`;",
        "const d = await inChunks(ids, (chunk) => db.artifact.findMany({ where: { id: { in: chunk } } }));",
        "// bounded: two cursor branches",
        "const e = { OR: [{ a: 1 }, ...rest] };",
        "const f = { id: { in: ['x', 'y'] } };",
      ].join("\n"),
    );
    try {
      expect(listSites(file).map((s) => s.line)).toEqual([1, 2, 3]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
