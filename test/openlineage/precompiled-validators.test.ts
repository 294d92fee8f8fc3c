import path from "node:path";
import { compileValidators, type EventKindValidators, OpenLineageSchema } from "../../src/openlineage/schema-validator";
import { ensureBuilt } from "../support/build";
import { fixtureFiles, runEvent, withBaseFields } from "../support/openlineage";

/**
 * `npm run build` writes the schema validators as ajv standalone code (a started server loads them
 * instead of compiling the official schemas); they must answer exactly what the compiled ones do.
 */
describe("the validators the build precompiles", () => {
  let precompiled: OpenLineageSchema;
  let compiled: OpenLineageSchema;
  beforeAll(() => {
    ensureBuilt();
    precompiled = new OpenLineageSchema(require(path.join(__dirname, "..", "..", "dist", "src", "openlineage", "openlineage-validators.generated.js")) as EventKindValidators);
    compiled = new OpenLineageSchema(compileValidators().kinds);
  }, 900_000);

  test("give the same verdict, pointer and reason as the schemas compiled at run time, on every fixture event and broken ones", () => {
    const events = fixtureFiles().flatMap(({ events }) => events.map(withBaseFields));
    const broken = [
      runEvent({ eventTime: "yesterday" }),
      { ...runEvent(), eventType: "DONE" },
      { ...runEvent(), producer: "not a uri" },
      { ...runEvent(), run: { runId: "not-a-uuid" } },
      { ...runEvent(), job: { namespace: "ns" } },
      { ...runEvent(), inputs: [{ namespace: "ns", name: "t", facets: { dataSource: { _producer: "https://x", _schemaURL: "https://x", name: "x", uri: "file" } } }] },
      [],
      null,
    ];
    const verdicts = (schema: OpenLineageSchema) => [...events, ...broken].map((event) => schema.validate(event));
    const fromBuild = verdicts(precompiled);
    expect(fromBuild).toEqual(verdicts(compiled));
    // and they are verdicts both ways: the fixtures hold valid and invalid events
    expect(fromBuild.filter((verdict) => verdict === null).length).toBeGreaterThan(400);
    expect(fromBuild.filter((verdict) => verdict !== null).length).toBeGreaterThan(100);
  });
});
