import { getIntrospectionQuery, getNullableType, isListType } from "graphql";
import { BOUNDED_LISTS, REQUEST_LIMITS } from "../../src/limits";
import { schema } from "../../src/schema";
import { seedGraph } from "../support/lineage-graph";
import { draft, registerOperation, tableCounts } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * Every class of bad input answers a documented code, with no INTERNAL_SERVER_ERROR, no stack
 * and nothing written; the HTTP status follows GraphQL over HTTP (request errors: 400 with
 * application/graphql-response+json, 200 with application/json; a body that is not JSON: 400).
 */
const GRAPHQL_RESPONSE = "application/graphql-response+json";
const STACK = /\bat .*\.(ts|js):\d+|\n\s+at /;

/** 5,000 levels of {"a": …}, as text: JSON.stringify itself recurses and would overflow on it. */
const nestedJsonText = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
const nestedLiteral = (depth: number) => `${"{a:".repeat(depth)}1${"}".repeat(depth)}`;
const nestedJson = (depth: number): unknown => JSON.parse(nestedJsonText(depth));

const generate = { name: "generate", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "sample", artifactType: "csv", inferLineageFrom: { inputs: [] } }] };
const recordWithParams = (params: string, declare = "") =>
  `mutation${declare}{ recordExecution(input: { operation: "generate", operationVersion: "1", params: ${params}, inputs: [],
     outputs: [{ role: "sample", artifacts: [{ originalName: "s.csv", contentHash: "sha256:2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881" }] }] }) { __typename } }`;
const aliasedMutations = (count: number) =>
  `mutation($i: RegisterOperationInput!) { ${Array.from({ length: count }, (_, i) => `m${i}: registerOperation(input: $i) { __typename }`).join(" ")} }`;
const chainedFragments = (count: number) =>
  `{ ...F0 } ${Array.from({ length: count }, (_, i) => `fragment F${i} on Query { ${i + 1 < count ? `...F${i + 1}` : "__typename"} }`).join(" ")}`;

describe("bad input: a documented code, never a server fault", () => {
  let t: TestApp;
  let root: string;
  let graph: Awaited<ReturnType<typeof seedGraph>>;

  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, generate);
    graph = await seedGraph(t.app.database.prisma, "bad", { a: "csv", b: "csv" }, [{ from: "a", to: "b" }]);
    root = graph.id("b");
  });
  afterAll(() => t.close());

  async function send(body: string, accept = "application/json") {
    const response = await t.app.yoga.fetch("http://provgraph.test/graphql", { method: "POST", headers: { "content-type": "application/json", accept }, body });
    const text = await response.text();
    return { status: response.status, text, json: JSON.parse(text) as { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] } };
  }
  const request = (query: string, variables?: unknown) => JSON.stringify({ query, variables });

  /** Sends with both Accept headers; asserts codes, status, no fault, no stack, nothing written. */
  async function expectRefused(body: string, codes: string[], message?: string | RegExp) {
    const before = await tableCounts(t);
    const asJson = await send(body);
    const asGraphQLResponse = await send(body, GRAPHQL_RESPONSE);
    for (const answer of [asJson, asGraphQLResponse]) {
      expect(answer.json.errors!.map((e) => e.extensions?.code)).toEqual(codes);
      expect(answer.text).not.toMatch(STACK);
      expect(answer.text).not.toContain("INTERNAL_SERVER_ERROR");
      if (message) expect(answer.json.errors![0].message).toEqual(message instanceof RegExp ? expect.stringMatching(message) : message);
    }
    expect(await tableCounts(t)).toEqual(before);
    return { asJson, asGraphQLResponse };
  }

  describe("variables that do not fit their types: graphql-js's message, BAD_USER_INPUT, 400 only for graphql-response+json", () => {
    test.each([
      ["an Int given as a string", "query($f: Int) { executions(first: $f) { edges { cursor } } }", { f: "5" }, 'Variable "$f" got invalid value "5"; Int cannot represent non-integer value: "5"'],
      ["a bad enum", "query($s: ExecutionStatus) { executions(filter: { status: $s }) { edges { cursor } } }", { s: "NOPE" }, 'Variable "$s" got invalid value "NOPE"; Value "NOPE" does not exist in "ExecutionStatus" enum.'],
      ["an ID given as an object", "query($id: ID!) { node(id: $id) { id } }", { id: { a: 1 } }, 'Variable "$id" got invalid value { a: 1 }; ID cannot represent value: { a: 1 }'],
      [
        "a bad DateTime",
        'query($d: DateTime) { lineage(artifactId: "art_0000000000000000000000000000000000000000", asOf: $d) { truncated } }',
        { d: "yesterday" },
        'Variable "$d" got invalid value "yesterday"; DateTime cannot represent an invalid date-time-string yesterday.',
      ],
      [
        "a Boolean given as a string",
        'query($b: Boolean) { lineage(artifactId: "art_0000000000000000000000000000000000000000", stepBoundaryOnly: $b) { truncated } }',
        { b: "yes" },
        'Variable "$b" got invalid value "yes"; Boolean cannot represent a non boolean value: "yes"',
      ],
      ["an unknown input field", "query($f: ExecutionFilter) { executions(filter: $f) { edges { cursor } } }", { f: { nope: 1 } }, 'Variable "$f" got invalid value { nope: 1 }; Field "nope" is not defined by type "ExecutionFilter".'],
      ["a required variable left out", "query($f: Int!) { executions(first: $f) { edges { cursor } } }", {}, 'Variable "$f" of required type "Int!" was not provided.'],
      [
        "a mutation input with a wrong type",
        "mutation($i: RegisterOperationInput!) { registerOperation(input: $i) { __typename } }",
        { i: { ...generate, kind: "MAKER" } },
        'Variable "$i" got invalid value "MAKER" at "i.kind"; Value "MAKER" does not exist in "OperationKind" enum.',
      ],
    ])("%s", async (_name, query, variables, message) => {
      const { asJson, asGraphQLResponse } = await expectRefused(request(query, variables), ["BAD_USER_INPUT"], message);
      expect(asJson.status).toBe(200);
      expect(asGraphQLResponse.status).toBe(400);
    });

    test("a null variable for a required argument (found while executing) is BAD_USER_INPUT too", async () => {
      const res = await send(request('query($id: ID = "x") { node(id: $id) { id } }', { id: null }));
      expect(res.json.errors).toEqual([expect.objectContaining({ message: 'Argument "id" of non-null type "ID!" must not be null.', extensions: { code: "BAD_USER_INPUT" } })]);
    });
  });

  describe("documents refused before they run", () => {
    test("a syntax error is GRAPHQL_PARSE_FAILED", async () => {
      const { asJson, asGraphQLResponse } = await expectRefused(request("{ executions("), ["GRAPHQL_PARSE_FAILED"], "Syntax Error: Expected Name, found <EOF>.");
      expect([asJson.status, asGraphQLResponse.status]).toEqual([200, 400]);
    });

    test.each([
      ["two operations and no operationName", { query: "query A { __typename } query B { __typename }" }, 'The document holds 2 operations (A, B): name the one to run in "operationName".'],
      ["an operationName the document does not hold", { query: "query A { __typename } query B { __typename }", operationName: "C" }, 'The document holds no operation named "C"; it holds A, B.'],
      [
        "an unnamed operation beside a named one",
        { query: "{ __typename } query B { __typename }", operationName: "B" },
        'The document holds 2 operations (an unnamed query, B), and an unnamed operation must be a document\'s only one: name each, and the one to run in "operationName".',
      ],
      ["fragments only", { query: "fragment F on Query { __typename }" }, "The document holds no operation to run, only fragments: add a query, mutation or subscription."],
      [
        "twelve operations, a misspelt name",
        { query: Array.from({ length: 12 }, (_, i) => `query Q${i} { __typename }`).join(" "), operationName: "q1" },
        'The document holds no operation named "q1"; it holds Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9 and 2 more.',
      ],
    ])("%s: OPERATION_RESOLUTION_FAILURE saying which (Yoga: \"Could not determine what operation to execute.\")", async (_name, body, message) => {
      const { asJson, asGraphQLResponse } = await expectRefused(JSON.stringify(body), ["OPERATION_RESOLUTION_FAILURE"], message);
      expect([asJson.status, asGraphQLResponse.status]).toEqual([200, 400]);
    });

    test("the operation named is run, and a lone operation needs no name", async () => {
      expect((await send(JSON.stringify({ query: "query A { a: __typename } query B { b: __typename }", operationName: "B" }))).json).toEqual({ data: { b: "Query" } });
      expect(await t.gql("query A { a: __typename }")).toEqual({ data: { a: "Query" } });
    });

    test("an operationName that is not a string is BAD_REQUEST, 400 whatever the Accept header", async () => {
      const { asJson, asGraphQLResponse } = await expectRefused(JSON.stringify({ query: "query A { __typename }", operationName: 5 }), ["BAD_REQUEST"], 'Expected "operationName" param to be a string or null, but given number.');
      expect([asJson.status, asGraphQLResponse.status]).toEqual([400, 400]);
    });

    test("fields nested deeper than 15 are QUERY_TOO_DEEP (fragments are not levels)", async () => {
      let selection = "id";
      for (let i = 0; i < 3; i++) selection = `... on Artifact { parents { ${selection} } }`;
      const fine = await t.gql(`query($id: ID!) { artifact(id: $id) { ${selection} } }`, { id: root });
      expect(fine.errors).toBeUndefined();
      for (let i = 0; i < 12; i++) selection = `parents { ${selection} }`;
      await expectRefused(request(`{ artifact(id: "${root}") { ${selection} } }`), ["QUERY_TOO_DEEP"], "The operation nests fields 17 levels deep; at most 15 levels are accepted.");
    });

    test("more than 100 aliases is TOO_MANY_ALIASES", async () => {
      const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `o${i}: operations(first: 1) { edges { cursor } }`).join(" ")} }`;
      expect((await t.gql(aliases(100))).errors).toBeUndefined();
      await expectRefused(request(aliases(101)), ["TOO_MANY_ALIASES"], "The operation has 101 aliased fields; at most 100 are accepted.");
    });

    test("more than 10,000 tokens is TOO_MANY_TOKENS", async () => {
      // 12 tokens around the list, one per id.
      const ids = (n: number) => `{ nodes(ids: [${"1,".repeat(n)}]) { id } }`;
      expect((await t.gql(ids(9_988))).errors!.map((e) => e.extensions!.code)).toEqual(["INVALID_ARGUMENT"]);
      await expectRefused(request(ids(9_989)), ["TOO_MANY_TOKENS"], "The document has more than 10,000 tokens; at most 10,000 are accepted. Pass large inputs as variables.");
    });

    test("a field repeated 1,000 times in one selection is DOCUMENT_TOO_COMPLEX (graphql-js's validation budget), not a bare \"Validation aborted.\"", async () => {
      const repeated = (n: number) => `{ operations(first: 1) { edges { cursor${" cursor".repeat(n - 1)} } } }`;
      expect((await t.gql(repeated(200))).errors).toBeUndefined();
      const { asJson, asGraphQLResponse } = await expectRefused(request(repeated(1_000)), ["DOCUMENT_TOO_COMPLEX"], /^The document is too complex to validate: .* Ask for each field once per selection, and spread each fragment once\.$/);
      expect([asJson.status, asGraphQLResponse.status]).toEqual([200, 400]);
    });

    test("a document defining more than 100 operations is TOO_MANY_OPERATIONS (graphql-js validates each against the whole document: 1,900 held the event loop 90-330 ms)", async () => {
      const operations = (n: number) => JSON.stringify({ query: Array.from({ length: n }, (_, i) => `query Q${i} { q${i}: __typename }`).join(" "), operationName: "Q7" });
      expect((await send(operations(100))).json).toEqual({ data: { q7: "Query" } });
      const { asJson, asGraphQLResponse } = await expectRefused(operations(101), ["TOO_MANY_OPERATIONS"], "The document defines 101 operations; at most 100 are accepted in one document (a request runs one of them).");
      expect([asJson.status, asGraphQLResponse.status]).toEqual([200, 400]);
      expect(asJson.json.errors![0].extensions).toEqual({ code: "TOO_MANY_OPERATIONS", limit: 100, found: 101 });
    });

    test("a document over 100,000 characters is DOCUMENT_TOO_LARGE, before parsing", async () => {
      const document = `{ __typename }${" ".repeat(REQUEST_LIMITS.maxDocumentLength)}`;
      await expectRefused(request(document), ["DOCUMENT_TOO_LARGE"], "The document is 100,014 characters long; at most 100,000 are accepted. Pass large inputs as variables.");
    });

    test("5,000 nested inline fragments are QUERY_TOO_DEEP (bracket nesting), not a stack overflow", async () => {
      const document = `{ ${"... on Query { ".repeat(5_000)}__typename${" }".repeat(5_000)} }`;
      await expectRefused(request(document), ["QUERY_TOO_DEEP"], /^The document nests brackets more than 128 levels deep \(line 1, column \d+\)\.$/);
    });

    test("5,000 chained fragments are refused (too long), 101 for their number; 100 run", async () => {
      await expectRefused(request(chainedFragments(5_000)), ["DOCUMENT_TOO_LARGE"]);
      await expectRefused(request(chainedFragments(101)), ["TOO_MANY_FRAGMENTS"], "The document defines 101 fragments; at most 100 are accepted in one document.");
      expect(await t.gql(chainedFragments(100))).toEqual({ data: { __typename: "Query" } });
    });

    test("more than 100 fragments spread side by side are TOO_MANY_FRAGMENTS (graphql-js compares each pair: 1,000 held the event loop 230 ms before its budget gave up)", async () => {
      const sideBySide = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `...F${i}`).join(" ")} } ${Array.from({ length: n }, (_, i) => `fragment F${i} on Query { __typename }`).join(" ")}`;
      expect(await t.gql(sideBySide(100))).toEqual({ data: { __typename: "Query" } });
      const { asJson } = await expectRefused(request(sideBySide(1_000)), ["TOO_MANY_FRAGMENTS"]);
      expect(asJson.json.errors![0].extensions).toEqual({ code: "TOO_MANY_FRAGMENTS", limit: 100, found: 1_000 });
    });

    test("more than 20 mutations in one request is TOO_MANY_MUTATIONS; nothing is registered", async () => {
      const input = { ...generate, name: "many" };
      const { asJson } = await expectRefused(request(aliasedMutations(21), { i: input }), ["TOO_MANY_MUTATIONS"], "The request carries 21 mutations; at most 20 are accepted in one request. Send the rest in further requests.");
      expect(asJson.status).toBe(200);
      const twenty = await t.gql(aliasedMutations(20), { i: input });
      expect(Object.values(twenty.data!)).toHaveLength(20);
    });

    test("10,000 aliased mutations: refused before parsing, nothing written", async () => {
      await expectRefused(request(aliasedMutations(10_000), { i: generate }), ["DOCUMENT_TOO_LARGE"]);
    });
  });

  describe("cost: counted with the variables, every aliased copy, documented maxima usable", () => {
    const CLOSURE = "nodes { artifact { id originalName } depth } edges { source { id } target { id } kind groupId }";

    test("lineage(first: 50000), the documented maximum, runs as a literal and as a variable", async () => {
      const literal = await t.gql(`{ lineage(artifactId: "${root}", first: 50000) { ${CLOSURE} } }`);
      expect(literal.errors).toBeUndefined();
      expect(literal.data!.lineage.nodes).toEqual([{ artifact: { id: expect.any(String), originalName: "bad/a" }, depth: 1 }]);
      const variable = await t.gql(`query($n: Int) { lineage(artifactId: "${root}", first: $n) { ${CLOSURE} } }`, { n: 50_000 });
      expect(variable).toEqual(literal);
      expect((await t.gql(`{ executions(first: 500) { edges { node { runId inputs { artifact { id parents { id } } } } } } }`)).errors).toBeUndefined();
    });

    test("GraphiQL's introspection query passes every limit", async () => {
      const res = await t.gql(getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true }));
      expect(res.errors).toBeUndefined();
      expect(res.data!.__schema.queryType).toEqual({ kind: "OBJECT", name: "Query" });
    });

    test("aliased copies add up: eight closures of 50,000 are QUERY_TOO_COSTLY", async () => {
      const copies = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `l${i}: lineage(artifactId: "${root}", first: 50000) { nodes { artifact { id originalName } depth } }`).join(" ")} }`;
      expect((await t.gql(copies(3))).errors).toBeUndefined();
      const { asJson, asGraphQLResponse } = await expectRefused(
        request(copies(8)),
        ["QUERY_TOO_COSTLY"],
        "The operation's estimated cost is 2,000,008; at most 1,000,000 is accepted. Its costliest part is `l0: lineage` (50,000 items: 250,001). Pass a smaller `first` there, or ask for less inside it, fewer aliased copies or less nesting.",
      );
      expect([asJson.status, asGraphQLResponse.status]).toEqual([200, 400]);
    });

    test("more than 10,000 selections once fragments are spread is QUERY_TOO_COSTLY (not counted further)", async () => {
      // 11,111 spreads of fragments ten times over, and 10,000 __typename: one __typename when run.
      const fanOut = (levels: string[]) => levels.map((name, i) => `fragment ${name} on Query { ${i + 1 < levels.length ? `...${levels[i + 1]} `.repeat(10) : "__typename"} }`).join(" ");
      const { asJson } = await expectRefused(
        request(`{ ...A } ${fanOut(["A", "B", "C", "D", "E"])}`),
        ["QUERY_TOO_COSTLY"],
        "The operation has more than 10,000 selections once its fragments are spread; at most 10,000 are accepted. Spread fewer fragments.",
      );
      expect(asJson.json.errors![0].extensions).toEqual({ code: "QUERY_TOO_COSTLY", limit: 10_000 });
      expect(await t.gql(`{ ...A } ${fanOut(["A", "B", "C", "D"])}`)).toEqual({ data: { __typename: "Query" } });
    });

    test("a bound passed as a variable counts as its value", async () => {
      const query = `query($n: Int) { lineage(artifactId: "${root}", first: $n) { nodes { artifact { producedBy { inputs { artifact { parents { id } } } } } } } }`;
      expect((await t.gql(query, { n: 5 })).errors).toBeUndefined();
      await expectRefused(request(query, { n: 50_000 }), ["QUERY_TOO_COSTLY"]);
    });
  });

  describe("inputs too big to walk", () => {
    test.each([
      ["params nested 65 deep as a variable", `{"query": ${JSON.stringify(recordWithParams("$p", "($p: JSON)"))}, "variables": {"p": ${nestedJsonText(65)}}}`, "JSON_TOO_DEEP"],
      ["params nested 5,000 deep as a variable", `{"query": ${JSON.stringify(recordWithParams("$p", "($p: JSON)"))}, "variables": {"p": ${nestedJsonText(5_000)}}}`, "JSON_TOO_DEEP"],
      ["params nested 65 deep as a literal", request(recordWithParams(nestedLiteral(65))), "JSON_TOO_DEEP"],
      ["params nested 5,000 deep as a literal", request(recordWithParams(nestedLiteral(5_000))), "QUERY_TOO_DEEP"],
    ])("%s", async (_name, body, code) => {
      const { asJson } = await expectRefused(body, [code]);
      // Nested past the body bound (128) it is refused while the body is read; between 65 and 128, by the JSON argument check.
      if (code === "JSON_TOO_DEEP") expect(asJson.json.errors![0].message).toMatch(/(JSON input nests objects and lists more than 64 levels deep|The body nests objects and arrays more than 128 levels deep; at most 128 are accepted)\.$/);
    });

    test("params 64 deep are accepted (the documented depth)", async () => {
      const res = await t.gql(recordWithParams("$p", "($p: JSON)").replace("{ __typename }", "{ __typename ... on RecordExecutionPayload { execution { params } } }"), { p: nestedJson(64) });
      expect(res.errors).toBeUndefined();
      expect(res.data!.recordExecution.execution.params).toEqual(nestedJson(64));
    });

    const artIds = (count: number) => Array.from({ length: count }, (_, i) => `art_${i.toString(16).padStart(40, "0")}`);

    test("nodes(ids) with more than 1,000 ids is INVALID_ARGUMENT", async () => {
      await expectRefused(request("query($ids: [ID!]!) { nodes(ids: $ids) { id } }", { ids: artIds(100_000) }), ["INVALID_ARGUMENT"], "ids: at most 1000 ids in one call, got 100000");
    });

    test("nodes(ids) over 1,000 ids is refused by its count before any id is read, at each response key, as a field error", async () => {
      // The 1,001st is no ID at all: read, it would be BAD_USER_INPUT; counted first, the list is refused as too long.
      const ids = [...artIds(1_000), { not: "an id" }];
      const query = "query($ids: [ID!]!) { a: nodes(ids: $ids) { id } ...F } fragment F on Query { b: nodes(ids: $ids) { id } }";
      const { asJson, asGraphQLResponse } = await expectRefused(request(query, { ids }), ["INVALID_ARGUMENT", "INVALID_ARGUMENT"], "ids: at most 1000 ids in one call, got 1001");
      const refused = (key: string, column: number) => ({ message: "ids: at most 1000 ids in one call, got 1001", locations: [{ line: 1, column }], path: [key], extensions: { code: "INVALID_ARGUMENT", field: "ids", reason: "at most 1000 ids in one call, got 1001" } });
      for (const answer of [asJson, asGraphQLResponse]) expect(answer.json).toEqual({ data: null, errors: [refused("a", query.indexOf("a: nodes") + 1), refused("b", query.indexOf("b: nodes") + 1)] });
      expect([asJson.status, asGraphQLResponse.status]).toEqual([200, 200]);
      // A list written in the document counts the same; a skipped field is not run, so not refused.
      await expectRefused(request(`{ nodes(ids: ${JSON.stringify(artIds(1_001))}) { id } }`), ["INVALID_ARGUMENT"], "ids: at most 1000 ids in one call, got 1001");
      const skipped = await send(request("query($ids: [ID!]!, $no: Boolean!, $one: ID!) { nodes(ids: $ids) @skip(if: $no) { id } n: node(id: $one) { id } }", { ids: artIds(5_000), no: true, one: root }));
      expect(skipped.json).toEqual({ data: { n: { id: root } } });
      // 1,000 is within the limit: each id answered (here: none exists, so each its NOT_FOUND).
      const atLimit = await send(request("query($ids: [ID!]!) { nodes(ids: $ids) { id } }", { ids: artIds(1_000) }));
      expect(atLimit.json.errors!.map((e) => e.extensions?.code)).toEqual(Array(1_000).fill("NOT_FOUND"));
    });

    test("every list argument of a query field has a bound, counted before any item is read", async () => {
      const lists = Object.values(schema.getQueryType()!.getFields()).flatMap((field) => field.args.filter((arg) => isListType(getNullableType(arg.type))).map((arg) => `${field.name}(${arg.name})`));
      expect(lists.sort()).toEqual(Object.entries(BOUNDED_LISTS).map(([field, bounded]) => `${field}(${bounded.argument})`).sort());
      // One over each bound, the last item of no fitting type: refused for its length, not for that item (BAD_USER_INPUT).
      const { maxFilterItems } = REQUEST_LIMITS;
      const over = [
        ["query($r: [ID!]!) { lineageGraph(roots: $r) { nodes { id } } }", { r: [...artIds(100), {}] }, "roots: at most 100 roots, got 101"],
        ['query($k: [SearchKind!]) { search(query: "sample", kinds: $k) { edges { cursor } } }', { k: [...Array(maxFilterItems).fill("ARTIFACT"), "NOPE"] }, `kinds: at most ${maxFilterItems} items, got ${maxFilterItems + 1}`],
        ['query($k: [SearchKind!]) { autocomplete(prefix: "sa", kinds: $k) { kind } }', { k: [...Array(maxFilterItems).fill("ARTIFACT"), "NOPE"] }, `kinds: at most ${maxFilterItems} items, got ${maxFilterItems + 1}`],
        ['query($y: [ColumnEdgeType!]) { columnLineage(namespace: "n", name: "d", field: "x", types: $y) { truncated } }', { y: [...Array(maxFilterItems).fill("DIRECT"), 7] }, `types: at most ${maxFilterItems} items, got ${maxFilterItems + 1}`],
        ["query($a: ID!, $y: [String!]) { lineage(artifactId: $a, artifactTypes: $y) { truncated } }", { a: root, y: [...Array(maxFilterItems).fill("csv"), {}] }, `artifactTypes: at most ${maxFilterItems} items, got ${maxFilterItems + 1}`],
        ["query($a: ID!, $y: [String!]) { provJson(artifactId: $a, artifactTypes: $y) }", { a: root, y: [...Array(maxFilterItems).fill("csv"), {}] }, `artifactTypes: at most ${maxFilterItems} items, got ${maxFilterItems + 1}`],
      ] as const;
      for (const [query, variables, message] of over) {
        const { asJson } = await expectRefused(request(query, variables), ["INVALID_ARGUMENT"], message);
        expect(asJson.json.data).toBeNull();
      }
      // At the bound, the list is read as before: one kind a thousand times is that kind.
      const atBound = await send(request('query($k: [SearchKind!]) { search(query: "generate", kinds: $k) { edges { node { kind label } } } }', { k: Array(maxFilterItems).fill("JOB") }));
      expect(atBound.json).toEqual({ data: { search: { edges: [{ node: { kind: "JOB", label: "generate" } }] } } });
    });

    test("a POST body of a type /graphql does not read: 415 UNSUPPORTED_MEDIA_TYPE naming it and the types it reads, nothing run", async () => {
      const before = await tableCounts(t);
      const mutation = JSON.stringify({ query: 'mutation { registerOperation(input: { name: "by-xml", version: "1", kind: CREATOR, inputs: [], outputs: [] }) { __typename } }' });
      for (const [contentType, accept] of [["application/xml", "application/json"], ["text/plain", GRAPHQL_RESPONSE], ["application/json-seq", "application/json"]]) {
        const response = await t.app.yoga.fetch("http://provgraph.test/graphql", { method: "POST", headers: { "content-type": contentType, accept, "x-graphql-yoga-csrf": "1" }, body: mutation });
        const text = await response.text();
        expect([contentType, response.status]).toEqual([contentType, 415]);
        expect(JSON.parse(text)).toEqual({
          errors: [
            {
              message: `/graphql reads POST bodies of the types application/json, application/graphql+json, application/graphql, application/x-www-form-urlencoded; this one has Content-Type '${contentType}'`,
              extensions: { code: "UNSUPPORTED_MEDIA_TYPE", contentType, accepted: ["application/json", "application/graphql+json", "application/graphql", "application/x-www-form-urlencoded"] },
            },
          ],
        });
        expect(text).not.toMatch(STACK);
      }
      expect(await tableCounts(t)).toEqual(before);
      // A media type's case is no part of it: APPLICATION/JSON is JSON.
      const upper = await t.app.yoga.fetch("http://provgraph.test/graphql", { method: "POST", headers: { "content-type": "Application/JSON; Charset=UTF-8" }, body: JSON.stringify({ query: "{ __typename }" }) });
      expect([upper.status, await upper.json()]).toEqual([200, { data: { __typename: "Query" } }]);
    });

    test("a body that is not JSON: a short BAD_REQUEST (never the body), 400 whatever is accepted", async () => {
      const body = `{"query": "${"x".repeat(1_000_000)}`;
      const { asJson, asGraphQLResponse } = await expectRefused(body, ["BAD_REQUEST"], "POST body sent invalid JSON.");
      expect([asJson.status, asGraphQLResponse.status]).toEqual([400, 400]);
      expect(asJson.text).toBe('{"errors":[{"message":"POST body sent invalid JSON.","extensions":{"code":"BAD_REQUEST"}}]}');
    });

    test("a body that is not UTF-8 is BAD_REQUEST, nothing written (decoded, its bytes became U+FFFD and were recorded so); a leading byte order mark is read past", async () => {
      const post = (bytes: Buffer) => t.app.yoga.fetch("http://provgraph.test/graphql", { method: "POST", headers: { "content-type": "application/json" }, body: bytes });
      const before = await tableCounts(t);
      const mutation = `mutation { registerOperation(input: { name: "caf\u00e9", version: "1", kind: CREATOR, inputs: [], outputs: [{ role: "o", artifactType: "csv", inferLineageFrom: { inputs: [] } }] }) { __typename } }`;
      // "café" in Latin-1: the é is the byte 0xE9, not UTF-8.
      const latin1 = Buffer.from(JSON.stringify({ query: mutation }), "latin1");
      const refused = await post(latin1);
      expect([refused.status, await refused.json()]).toEqual([400, { errors: [{ message: "the body is not UTF-8 text: GraphQL over HTTP bodies are UTF-8", extensions: { code: "BAD_REQUEST" } }] }]);
      expect(await tableCounts(t)).toEqual(before);
      const withBom = await post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ query: "{ __typename }" }))]));
      expect([withBom.status, await withBom.json()]).toEqual([200, { data: { __typename: "Query" } }]);
    });
  });

  test("roles named like Object.prototype's members are roles like any other, never the prototype's (fuzz seed 664309)", async () => {
    // An input role "constructor" once made the specId read Object.prototype.constructor: INTERNAL_SERVER_ERROR.
    for (const role of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const before = await tableCounts(t);
      const res = await t.gql(`mutation($i: RecordExecutionInput!) { recordExecution(input: $i) { __typename ... on Error { code message } } }`, {
        i: { operation: "generate", operationVersion: "1", inputs: [{ role, artifactIds: [root] }], outputs: [{ role: "sample", artifacts: [draft(`${role}.csv`)] }] },
      });
      expect(res.errors).toBeUndefined();
      expect(res.data!.recordExecution).toEqual({ __typename: "ArtifactValidationError", code: "ARTIFACT_VALIDATION", message: `input role '${role}' is not declared by generate@1` });
      expect(await tableCounts(t)).toEqual(before);
    }
    await registerOperation(t, { name: "protoRoles", version: "1", kind: "CREATOR", inputs: [{ role: "constructor", artifactType: "csv" }, { role: "__proto__", artifactType: "csv" }], outputs: [{ role: "toString", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
    const recorded = await t.gql(`mutation($i: RecordExecutionInput!) { recordExecution(input: $i) { __typename ... on RecordExecutionPayload { edgeCount execution { specId } } ... on Error { code message } } }`, {
      i: { operation: "protoRoles", operationVersion: "1", inputs: [{ role: "constructor", artifactIds: [root] }, { role: "__proto__", artifactIds: [graph.id("a")] }], outputs: [{ role: "toString", artifacts: [draft("proto-out.csv")] }] },
    });
    expect(recorded.errors).toBeUndefined();
    expect(recorded.data!.recordExecution).toMatchObject({ __typename: "RecordExecutionPayload", execution: { specId: expect.any(String) } });
  });

  test("a recording draft the API refuses still writes nothing", async () => {
    const before = await tableCounts(t);
    const res = await t.gql(`mutation($o: [ArtifactDraftInput!]!) { recordExecution(input: { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: $o }] }) { __typename } }`, {
      o: [draft("ok.csv"), { originalName: 5 }],
    });
    expect(res.errors!.map((e) => [e.extensions!.code, e.message])).toEqual([
      ["BAD_USER_INPUT", 'Variable "$o" got invalid value { originalName: 5 } at "o[1]"; Field "contentHash" of required type "String!" was not provided.'],
      ["BAD_USER_INPUT", 'Variable "$o" got invalid value 5 at "o[1].originalName"; String cannot represent a non string value: 5'],
    ]);
    expect(await tableCounts(t)).toEqual(before);
  });
});
