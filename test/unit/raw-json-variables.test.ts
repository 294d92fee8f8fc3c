import { splitRawJsonVariables } from "../../src/http/raw-json-variables";

/** Which big JSON variables of a GraphQL body are kept as text (src/http/raw-json-variables.ts), and what the rest parses to. */
describe("splitRawJsonVariables", () => {
  const raw = [{ field: "verifyEvidence", argument: "document" }];
  const doc = `{"a":"x\\"}]","b":[1,{"c":"\\\\"}],"d":"${"y".repeat(40)}"}`;
  const body = (query: string, variables: string, extra = "") => `{"query":${JSON.stringify(query)},"variables":${variables}${extra}}`;

  test("a big JSON variable used only as verifyEvidence's document is cut out as its text; the rest is parsed", () => {
    const split = splitRawJsonVariables(body("query($d: JSON!, $n: Int) { verifyEvidence(document: $d) { valid } }", `{ "d" : ${doc} , "n": 3 }`), raw, 20);
    expect(split).toEqual({ body: { query: "query($d: JSON!, $n: Int) { verifyEvidence(document: $d) { valid } }", variables: { d: null, n: 3 } }, raw: new Map([["d", doc]]) });
    expect(JSON.parse(split!.raw.get("d")!)).toEqual(JSON.parse(doc));
  });

  test("the operation named by operationName decides", () => {
    const query = "query A($d: JSON!) { verifyEvidence(document: $d) { valid } } query B($d: JSON!) { x: verifyEvidence(document: $d) { valid } y: verifyEvidence(jws: \"j\", document: $d) { valid } }";
    expect(splitRawJsonVariables(body(query, `{"d":${doc}}`, `,"operationName":"B"`), raw, 20)?.raw).toEqual(new Map([["d", doc]]));
    expect(splitRawJsonVariables(body(query, `{"d":${doc}}`), raw, 20)).toBeNull();
  });

  test.each([
    ["small", "query($d: JSON!) { verifyEvidence(document: $d) { valid } }", 10_000],
    ["not JSON-typed", "query($d: RecordExecutionInput!) { verifyEvidence(document: $d) { valid } }", 20],
    ["used by another field too", "query($d: JSON!) { verifyEvidence(document: $d) { valid } other(value: $d) }", 20],
    ["used in a fragment", "query($d: JSON!) { ...F } fragment F on Query { verifyEvidence(document: $d) { valid } }", 20],
    ["used in a directive", "query($d: JSON!) { verifyEvidence(document: $d) @skip(if: $d) { valid } }", 20],
    ["a mutation", "mutation($d: JSON!) { verifyEvidence(document: $d) { valid } }", 20],
    ["not GraphQL", "query($d: JSON!) { verifyEvidence(document: $d) ", 20],
  ])("nothing is cut out when the variable is %s", (_, query, minChars) => {
    expect(splitRawJsonVariables(body(query, `{"d":${doc}}`), raw, minChars)).toBeNull();
  });

  test.each([
    ["a duplicate variable", `{"query":"query($d: JSON!) { verifyEvidence(document: $d) { valid } }","variables":{"d":${doc},"d":1}}`],
    ["a duplicate member", `{"query":"query($d: JSON!) { verifyEvidence(document: $d) { valid } }","variables":{"d":${doc}},"variables":{}}`],
    ["trailing text", `{"query":"query($d: JSON!) { verifyEvidence(document: $d) { valid } }","variables":{"d":${doc}}} x`],
    ["a broken structure", `{"query":"query($d: JSON!) { verifyEvidence(document: $d) { valid } }","variables":{"d":${doc}},}`],
    ["an unclosed document", `{"query":"query($d: JSON!) { verifyEvidence(document: $d) { valid } }","variables":{"d":${doc.slice(0, -1)}`],
  ])("nothing is cut out of a body with %s (it is parsed whole, as before)", (_, text) => {
    expect(splitRawJsonVariables(text, raw, 20)).toBeNull();
  });
});
