import { generateKeyPairSync, randomUUID } from "node:crypto";
import { type ExecutionResult, execute, getNamedType, type GraphQLSchema, parse, subscribe } from "graphql";
import { guardedFieldsOf } from "../../src/auth/pothos";
import { createTokenTestApp, type TokenTestApp } from "../support/auth";
import { ERASURE_SECRET, ingest, latestVersionId } from "../support/compliance";
import { dataset, runEvent } from "../support/openlineage";
import { draft, recordOk, registerOperation } from "../support/recording";
import { answeredFields, textFieldsOf, type WalkDocument, walkSelection } from "../support/schema-walk";

/**
 * No protected text reaches a viewer without the clearance, by any path: a store whose tagged column
 * and runs carry protected text in every place a producer can put it is walked through every field
 * of every type reachable from the root fields (queries generated from the schema, so a field added
 * tomorrow is walked too), its subscriptions' payloads and the evidence route — as an admin without
 * clearance:PII, and then with it. Without it, no protected text anywhere; with it, all of it (so the
 * walk reaches every place). Every text field of a reached type must be shown safe: answered (without
 * protected text) by the walk — with clearance at least, while the same selections without it received
 * no protected text anywhere — or listed below with the reason the walk cannot answer it.
 */

const PROTECTED = "PROTECTED-";
/** Every place protected text is planted, by what it is. */
const MARKERS = [
  "column-description",
  "sample-value",
  "derived-column-description",
  "edge-description",
  "sql",
  "source-code",
  "error-message",
  "stack-trace",
  "dataset-documentation",
  "metadata",
  "derived-metadata",
  "params",
].map((what) => `${PROTECTED}${what}`);
const marker = (what: string) => `${PROTECTED}${what}`;
/** A column's id in the graph API: col:<art_…>:<field>. */
const columnId = (artifactId: string, field: string) => `col:${artifactId}:${encodeURIComponent(field)}`;

/** Root fields the walk does not start from, and why. */
const NOT_WALKED: Record<string, string> = {
  compositeDefinition: "a composite's declaration (names, roles, wiring an admin registers) holds no recorded data and names no policy subject",
  workflowSoundness: "the soundness of a composite's declaration: its steps and roles, no recorded data",
};

/**
 * Text fields of reached types the walk cannot show answered, and why they cannot carry protected text.
 * (A field listed here that the walk does answer fails the test: the list only shrinks.)
 */
const COMPOSITE_DECLARATION = "a composite's declaration (names, roles, flags, wiring and their soundness), registered by an admin: no recorded data, no policy subject";
const UNANSWERED: Record<string, string> = {
  "Execution.compositeStep": "the name of a step of a composite's declaration",
  "EvidencePackage.businessDate": "the calendar date (YYYY-MM-DD) the caller selected the version by",
  "Operation.businessDateParam": "the name of a parameter an admin declared as the operation's business date",
  ...Object.fromEntries(
    [
      "CompositeDefinition.flags",
      "CompositeDefinition.name",
      "CompositeDefinition.version",
      "CompositeInputRole.artifactType",
      "CompositeInputRole.role",
      "CompositeOutputRole.artifactType",
      "CompositeOutputRole.role",
      "CompositeStep.name",
      "CompositeWire.from",
      "CompositeWire.to",
      "FlagCombinationSoundness.deadSteps",
      "FlagCombinationSoundness.inactiveSteps",
      "FlagValue.flag",
      "PlaceTokens.place",
      "SoundnessWitness.firingSequence",
      "SoundnessWitness.leftoverPlaces",
      "StepCondition.flag",
    ].map((coordinate) => [coordinate, COMPOSITE_DECLARATION]),
  ),
  "OpenLineageEventWarning.code": "a format warning's code (FORMAT): a word of provgraph's, never the event's data; the tagged events carry none",
  "OpenLineageEventWarning.pointer": "where in the event a format check failed: a JSON pointer of the event's keys (facet and dataset names), never a value",
  "OpenLineageEventWarning.reason": "the schema's words for the failed check (the format expected), never a value of the event",
  "IntegrityViolation.detail": "which invariant rows break and how, in the server's words about ids and counts; a consistent store has none to show",
  "IntegrityViolation.subject": "the id of a row breaking an invariant; a consistent store has none to show",
};

/** The text fields only a cleared viewer is answered (guarded; ExecutionFailure's by Execution.failure). */
const CLEARED_ONLY = [
  "Artifact.metadata",
  "Column.description",
  "Column.facets",
  "Column.sampleValues",
  "ColumnEdge.description",
  "EvidenceRun.params",
  "Execution.params",
  "ExecutionFailure.message",
  "ExecutionFailure.programmingLanguage",
  "ExecutionFailure.stackTrace",
  "OpenLineageEvent.event",
];

describe("redaction: a walk of the whole schema from tagged data finds no protected text without clearance", () => {
  let t: TokenTestApp;
  let schema: GraphQLSchema;
  const ids: Record<string, string> = {};
  const walked = { uncleared: [] as unknown[], cleared: [] as unknown[], wrongPurpose: [] as unknown[], allowedPurpose: [] as unknown[] };
  const answered = { uncleared: new Set<string>(), cleared: new Set<string>() };
  const reached: WalkDocument = { text: "", types: new Set(), unwalkable: new Set() };
  let uncleared: string;
  let cleared: string;

  const rootArguments = (): Record<string, { args: string; variables?: Record<string, [string, unknown]> }[]> => ({
    artifact: [ids.customers, ids.contacts, ids.a, ids.b].map((id) => ({ args: `id: "${id}"` })),
    columnLineage: [{ args: `namespace: "crm", name: "contacts", field: "email_hash"` }, { args: `namespace: "crm", name: "customers", field: "email", direction: DOWNSTREAM` }],
    dataset: [{ args: `namespace: "crm", name: "contacts"` }, { args: `namespace: "crm", name: "customers"` }],
    evidencePackage: [{ args: `artifactId: "${ids.contacts}"` }, { args: `artifactId: "${ids.b}"` }, { args: `namespace: "crm", name: "contacts", field: "email_hash"` }],
    execution: [ids.failRun, ids.scoreRun].map((runId) => ({ args: `runId: "${runId}"` })),
    executions: [{ args: "" }],
    executionsBySpec: [{ args: `specId: "${ids.scoreSpec}"` }],
    lineage: [{ args: `artifactId: "${ids.b}"` }, { args: `artifactId: "${ids.a}", direction: DOWNSTREAM` }, { args: `artifactId: "${ids.contacts}"` }],
    lineageCoverage: [{ args: `namespace: "crm"` }],
    macroGraph: [{ args: `pipeline: "scoring"` }, { args: `pipeline: "scoring", format: DOT` }, { args: `job: { namespace: "crm", name: "mask" }, layout: true` }],
    microGraph: [{ args: `pipeline: "scoring"` }, { args: `pipeline: "scoring", format: DOT` }, { args: `job: { namespace: "crm", name: "mask" }, layout: true` }],
    lineageGraph: [
      { args: `roots: ["${ids.contacts}"], depth: 3, columns: true, layout: true` },
      { args: `roots: ["${ids.b}", "${ids.scoreRun}"], depth: 3, columns: true` },
      { args: `roots: ["${columnId(ids.customers, "email")}"], direction: DOWNSTREAM, depth: 3, columns: true` },
    ],
    expand: [
      { args: `nodeId: "${ids.contacts}", direction: UPSTREAM, columns: true` },
      { args: `nodeId: "${ids.customers}", direction: DOWNSTREAM, columns: true` },
      { args: `nodeId: "${ids.a}", direction: DOWNSTREAM` },
      { args: `nodeId: "${columnId(ids.contacts, "email_hash")}", direction: UPSTREAM, columns: true` },
    ],
    lineagePath: [
      { args: `from: "${ids.customers}", to: "${ids.contacts}"` },
      { args: `from: "${ids.a}", to: "${ids.b}"` },
      { args: `from: "${columnId(ids.customers, "email")}", to: "${columnId(ids.contacts, "email_hash")}"` },
    ],
    impact: [{ args: `id: "${ids.customers}"` }, { args: `id: "${ids.a}"` }, { args: `id: "${columnId(ids.contacts, "email_hash")}", direction: UPSTREAM` }],
    node: [ids.failRun, ids.b].map((id) => ({ args: `id: "${id}"` })),
    nodes: [{ args: `ids: ["${ids.scoreRun}", "${ids.contacts}"]` }],
    openLineageEvents: [{ args: `runId: "${ids.failRun}"` }, { args: `dataset: { namespace: "crm", name: "contacts" }` }, { args: `job: { namespace: "crm", name: "mask" }` }],
    operation: [{ args: `name: "score", version: "1"` }, { args: `name: "mask", version: "openlineage:crm"` }],
    operations: [{ args: "" }],
    provJson: [{ args: `artifactId: "${ids.b}"` }, { args: `artifactId: "${ids.contacts}"` }],
    provenanceMap: [{ args: "direction: UPSTREAM" }, { args: "direction: DOWNSTREAM" }],
    verifyEvidence: [{ args: "document: $document", variables: { document: ["JSON!", ids.document] } }],
    apiTokens: [{ args: "" }],
    auditLog: [{ args: "" }],
    tagAudit: [{ args: "" }],
    erasurePlans: [{ args: "" }],
    erasurePlanById: [{ args: `id: "${ids.plan}"` }],
    integrityReport: [{ args: "" }],
    // Search and listings: by name, and by words only a column's description holds (searched only where it may be read).
    search: [{ args: `query: "contacts"` }, { args: `query: "email"` }, { args: "query: $description", variables: { description: ["String!", marker("column-description")] } }, { args: `query: "crm", kinds: [COLUMN, DATASET, JOB, RUN]` }],
    autocomplete: [{ args: `prefix: "cr"` }, { args: `prefix: "em"` }],
    artifacts: [{ args: "" }],
    datasets: [{ args: `namespace: "crm"` }],
    jobs: [{ args: "" }],
    namespaces: [{ args: "" }],
    pipelines: [{ args: "" }],
    privacyBudget: [{ args: `namespace: "crm", name: "customers"` }],
    verifySignature: [{ args: `jws: "${ids.jws}"` }],
    tagPurposes: [{ args: "" }, { args: "history: true" }],
    purposesServed: [{ args: `artifactId: "${ids.customers}", field: "email"` }, { args: `artifactId: "${ids.a}"` }],
  });

  /** One document per root field and argument set, selecting everything the field reaches. */
  function walkDocuments(operation: "query" | "subscription", roots: Record<string, { args: string; variables?: Record<string, [string, unknown]> }[]>) {
    const rootType = operation === "query" ? schema.getQueryType()! : schema.getSubscriptionType()!;
    return Object.entries(roots).flatMap(([field, calls]) =>
      calls.map(({ args, variables = {} }) => {
        const declared = Object.entries(variables).map(([name, [type]]) => `$${name}: ${type}`);
        const selection = walkSelection(schema, getNamedType(rootType.getFields()[field].type), { maxDepth: 7, expansions: 2, first: 5, argumentValues: {} }, reached);
        const rootFirst = rootType.getFields()[field].args.some((arg) => arg.name === "first") && !args.includes("first:") ? "first: 5" : "";
        const allArgs = [args, rootFirst].filter(Boolean).join(", ");
        const leaf = selection === "" ? "" : ` ${selection}`;
        return {
          name: `${field}(${args})`,
          text: `${operation}${declared.length ? `(${declared.join(", ")})` : ""} { ${field}${allArgs ? `(${allArgs})` : ""}${leaf} }`,
          variables: Object.fromEntries(Object.entries(variables).map(([name, [, value]]) => [name, value])),
        };
      }),
    );
  }

  async function contextFor(token: string, purpose: string | null = null) {
    const principal = await t.app.auth.authenticator.authenticate(`Bearer ${token}`);
    const { contextFactory } = t.app.yoga.getEnveloped({ principal, transport: "http", purpose });
    return contextFactory();
  }

  beforeAll(async () => {
    const signingKey = String(generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }));
    t = await createTokenTestApp({ env: { PROVGRAPH_ERASURE_SECRET: ERASURE_SECRET, PROVGRAPH_SIGNING_KEY: signingKey } });
    schema = t.app.yoga.getEnveloped().schema;
    uncleared = await t.issue(["admin"], { name: "admin-without-clearance" });
    cleared = await t.issue(["admin", "clearance:PII", "clearance:CONFIDENTIAL"], { name: "privacy-officer" });

    // An extract writes crm.customers, its email column described and sampled...
    const customers = dataset("crm", "customers", {
      schema: { fields: [{ name: "email", type: "string", description: marker("column-description") }, { name: "id", type: "int" }] },
      provgraph_columnSamples: { fields: { email: [marker("sample-value")] } },
      tags: { tags: [{ key: "CONFIDENTIAL", value: "internal", source: "DBT CORE", field: "id" }] },
    });
    await ingest(t, runEvent({ job: { namespace: "crm", name: "extract" }, outputs: [customers] }));
    ids.customers = await latestVersionId(t, "crm", "customers");
    // ...which an admin tags PII, and a masking job that reads it fails (its SQL, error and transformation describe the data).
    const tagged = await t.gql(`mutation { tagColumn(input: { column: { namespace: "crm", name: "customers", field: "email" }, tag: "PII", reason: "contact data" }) { created } }`);
    expect(tagged.errors).toBeUndefined();
    const failing = (runId: string, output: string) =>
      runEvent({
        runId,
        eventType: "FAIL",
        job: {
          namespace: "crm",
          name: "mask",
          facets: {
            ownership: { _producer: "https://x", _schemaURL: "https://openlineage.io/spec/facets/1-0-1/OwnershipJobFacet.json", owners: [{ name: "team:privacy", type: "TEAM" }] },
            sql: { _producer: "https://x", _schemaURL: "https://openlineage.io/spec/facets/1-1-0/SQLJobFacet.json", query: `SELECT sha256(email) /* ${marker("sql")} */ FROM customers` },
            sourceCode: { _producer: "https://x", _schemaURL: "https://openlineage.io/spec/facets/1-0-1/SourceCodeJobFacet.json", language: "python", sourceCode: marker("source-code") },
          },
        },
        run: {
          runId,
          facets: {
            errorMessage: { _producer: "https://x", _schemaURL: "https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json", message: marker("error-message"), programmingLanguage: "python", stackTrace: marker("stack-trace") },
          },
        },
        inputs: [dataset("crm", "customers", { schema: { fields: [{ name: "email" }, { name: "id" }] } })],
        outputs: [
          dataset("crm", output, {
            schema: { fields: [{ name: "email_hash", description: marker("derived-column-description") }, { name: "id" }] },
            documentation: { _producer: "https://x", _schemaURL: "https://openlineage.io/spec/facets/1-0-1/DocumentationDatasetFacet.json", description: marker("dataset-documentation") },
            columnLineage: {
              _producer: "https://x",
              _schemaURL: "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json",
              fields: {
                email_hash: { inputFields: [{ namespace: "crm", name: "customers", field: "email", transformations: [{ type: "DIRECT", subtype: "TRANSFORMATION", description: marker("edge-description"), masking: true }] }] },
                id: { inputFields: [{ namespace: "crm", name: "customers", field: "id", transformations: [{ type: "DIRECT", subtype: "IDENTITY" }] }] },
              },
            },
          }),
        ],
      });
    const failRun = randomUUID();
    await ingest(t, failing(failRun, "contacts"));
    ids.failRun = `run_${failRun}`;
    ids.contacts = await latestVersionId(t, "crm", "contacts");

    // A scoring pipeline recorded by a client: metadata and params describe the data; its input is tagged PII.
    await registerOperation(t, { name: "gen", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
    await registerOperation(t, { name: "score", version: "1", kind: "CREATOR", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "result", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }] });
    const gen = await recordOk(t, {
      operation: "gen",
      operationVersion: "1",
      pipeline: "scoring",
      step: 1,
      inputs: [],
      outputs: [{ role: "raw", artifacts: [{ ...draft("a.csv"), metadata: { note: marker("metadata") }, subjectKeys: ["walk-subject"] }] }],
    });
    ids.a = gen.outputIds["a.csv"];
    expect((await t.gql(`mutation { tagArtifact(input: { artifactId: "${ids.a}", tag: "PII", reason: "customer rows" }) { created } }`)).errors).toBeUndefined();
    const score = await recordOk(t, {
      operation: "score",
      operationVersion: "1",
      pipeline: "scoring",
      step: 2,
      params: { query: marker("params") },
      agent: "scorer",
      pins: { codeVersion: "git:1234abcd", imageDigest: "sha256:feed", deterministic: true, inputVersions: { a: "1" } },
      inputs: [{ role: "data", artifactIds: [ids.a] }],
      outputs: [{ role: "result", artifacts: [{ ...draft("a_scored.csv"), metadata: { note: marker("derived-metadata") } }] }],
    });
    ids.b = score.outputIds["a_scored.csv"];
    ids.scoreRun = score.runId;
    ids.scoreSpec = score.specId;
    // A second scoring run whose output an admin downgrades (what tagAudit shows), an operation with
    // output-to-output lineage, catalogue facts, and an executed erasure plan for a declared subject.
    const other = await recordOk(t, { operation: "score", operationVersion: "1", inputs: [{ role: "data", artifactIds: [ids.a] }], outputs: [{ role: "result", artifacts: [draft("a_other.csv")] }] });
    const downgraded = await t.gql(`mutation { downgradeTag(input: { target: { artifactId: "${other.outputIds["a_other.csv"]}" }, tag: "PII", reason: "salted hash" }) { id } }`);
    expect(downgraded.errors).toBeUndefined();
    await registerOperation(t, {
      name: "split",
      version: "1",
      kind: "CREATOR",
      inputs: [{ role: "data", artifactType: "csv" }],
      outputs: [
        { role: "left", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } },
        { role: "right", artifactType: "csv", inferLineageFrom: { outputs: ["left"] } },
      ],
    });
    for (const input of [
      { target: { artifactId: ids.b }, aggregate: { minGroupSize: 120, uniqueQuasiIdentifierCombinations: 0, quasiIdentifiers: ["zip"] }, note: "weekly counts", reason: "k-anonymous" },
      { target: { namespace: "crm", name: "contacts" }, immutable: true, note: "WORM", reason: "object lock" },
    ]) {
      expect((await t.gql(`mutation($input: RecordCatalogueFactsInput!) { recordCatalogueFacts(input: $input) { id } }`, { input })).errors).toBeUndefined();
    }
    ids.plan = (await t.gql(`mutation { erasurePlan(subjectKey: "walk-subject") { id } }`)).data!.erasurePlan.id;
    expect((await t.gql(`mutation { executeErasure(planId: "${ids.plan}") { id } }`)).errors).toBeUndefined();
    ids.document = (await t.gqlAs(cleared, `{ evidencePackage(artifactId: "${ids.contacts}") { document } }`)).data!.evidencePackage.document;
    // A privacy budget on the tagged dataset and a release that reads it; a signature to check (none is configured: any JWS).
    expect((await t.gql(`mutation { declarePrivacyBudget(input: { namespace: "crm", name: "customers", epsilon: 1, reason: "counts only" }) { accounting } }`)).errors).toBeUndefined();
    await ingest(t, runEvent({ job: { namespace: "crm", name: "extract" }, run: { runId: randomUUID(), facets: { provgraph_privacyCost: { epsilon: 0.1, mechanism: "laplace" } } }, inputs: [dataset("crm", "customers")], outputs: [dataset("crm", "dp_counts")] }));
    ids.jws = `${Buffer.from('{"alg":"EdDSA","kid":"k","cty":"provgraph-evidence/2"}').toString("base64url")}.${Buffer.from("{}").toString("base64url")}.AAAA`;

    const roots = rootArguments();
    for (const field of Object.keys(schema.getQueryType()!.getFields())) expect([field, field in roots || field in NOT_WALKED]).toEqual([field, true]);
    for (const [who, token] of [["uncleared", uncleared], ["cleared", cleared]] as const) {
      for (const document of walkDocuments("query", roots)) {
        const result = await execute({ schema, document: parse(document.text), variableValues: document.variables, contextValue: await contextFor(token) });
        walked[who].push({ root: document.name, result });
        answeredFields(schema, result.data, answered[who]);
      }
    }

    // The feeds: every subscription open while another failing run is ingested.
    const nextRun = randomUUID();
    const subscriptions = walkDocuments("subscription", {
      runRecorded: [{ args: "" }],
      runStatusChanged: [{ args: `runId: "run_${nextRun}"` }],
      lineageAdded: [{ args: `artifactId: "${ids.customers}", direction: DOWNSTREAM` }],
    });
    const open: { who: "uncleared" | "cleared"; name: string; events: AsyncIterableIterator<ExecutionResult> }[] = [];
    for (const [who, token] of [["uncleared", uncleared], ["cleared", cleared]] as const) {
      for (const document of subscriptions) {
        const events = (await subscribe({ schema, document: parse(document.text), contextValue: await contextFor(token) })) as AsyncIterableIterator<ExecutionResult>;
        expect(Symbol.asyncIterator in events).toBe(true);
        open.push({ who, name: document.name, events });
      }
    }
    await ingest(t, failing(nextRun, "contacts_v2"));
    for (const { who, name, events } of open) {
      const first = await events.next();
      await events.return?.();
      expect([name, first.done]).toEqual([name, false]);
      walked[who].push({ root: name, result: first.value });
      answeredFields(schema, first.value.data, answered[who]);
    }

    // And the evidence route, outside GraphQL.
    for (const [who, token] of [["uncleared", uncleared], ["cleared", cleared]] as const) {
      const answer = await t.send({ token, path: `/api/v1/evidence/${ids.contacts}` });
      expect(answer.status).toBe(200);
      walked[who].push({ root: "GET /api/v1/evidence", result: answer.json });
    }

    // Purposes: PII and CONFIDENTIAL now serve only fraud investigations. The cleared viewer stating no
    // purpose, or one they do not allow, sees none of it; stating fraud-investigation, all of it —
    // through the same queries, the subscriptions and the evidence route.
    for (const tag of ["PII", "CONFIDENTIAL"]) {
      expect((await t.gql(`mutation { declareTagPurposes(input: { tag: "${tag}", purposes: ["fraud-investigation"], reason: "fraud only" }) { tag } }`)).errors).toBeUndefined();
    }
    const marketer = await t.issue(["admin", "clearance:PII", "clearance:CONFIDENTIAL", "purpose:marketing"], { name: "cleared-marketer" });
    const investigator = await t.issue(["admin", "clearance:PII", "clearance:CONFIDENTIAL", "purpose:fraud-investigation"], { name: "cleared-investigator" });
    // The allowed purpose first: what it reads is in the purpose audit (purposesServed) when the others walk it.
    const viewers = [
      ["allowedPurpose", investigator, "fraud-investigation"],
      ["wrongPurpose", cleared, null],
      ["wrongPurpose", marketer, "marketing"],
    ] as const;
    for (const [who, token, purpose] of viewers) {
      for (const document of walkDocuments("query", rootArguments())) {
        const result = await execute({ schema, document: parse(document.text), variableValues: document.variables, contextValue: await contextFor(token, purpose) });
        walked[who].push({ root: document.name, result });
        answeredFields(schema, result.data, answered[who === "wrongPurpose" ? "uncleared" : "cleared"]);
      }
      const purposeRun = randomUUID();
      const feeds = walkDocuments("subscription", { runRecorded: [{ args: "" }], runStatusChanged: [{ args: `runId: "run_${purposeRun}"` }], lineageAdded: [{ args: `artifactId: "${ids.customers}", direction: DOWNSTREAM` }] });
      const opened: { name: string; events: AsyncIterableIterator<ExecutionResult> }[] = [];
      for (const document of feeds) opened.push({ name: document.name, events: (await subscribe({ schema, document: parse(document.text), contextValue: await contextFor(token, purpose) })) as AsyncIterableIterator<ExecutionResult> });
      await ingest(t, failing(purposeRun, `contacts_${who}_${purpose ?? "none"}`));
      for (const { name, events } of opened) {
        const first = await events.next();
        await events.return?.();
        expect([name, first.done]).toEqual([name, false]);
        walked[who].push({ root: name, result: first.value });
      }
      const answer = await t.send({ token, path: `/api/v1/evidence/${ids.contacts}`, headers: purpose === null ? {} : { "X-Provgraph-Purpose": purpose } });
      expect(answer.status).toBe(200);
      walked[who].push({ root: "GET /api/v1/evidence", result: answer.json });
    }
  }, 240_000);
  afterAll(() => t.close());

  test("with clearance but stating no purpose, or one the tags do not allow, no protected text is anywhere in the walk; stating an allowed purpose, all of it", () => {
    const leaks = walked.wrongPurpose.flatMap((entry) => {
      const found = MARKERS.filter((m) => JSON.stringify(entry).includes(m));
      return found.length ? [`${(entry as { root: string }).root}: ${found.join(", ")}`] : [];
    });
    expect(leaks).toEqual([]);
    const errors = walked.wrongPurpose.flatMap((entry) => ((entry as { result: ExecutionResult }).result.errors ?? []).map((e) => `${(entry as { root: string }).root}: ${e.message}`));
    expect(errors).toEqual([]);
    const text = JSON.stringify(walked.allowedPurpose);
    expect(MARKERS.filter((m) => !text.includes(m))).toEqual([]);
  });

  test("without clearance:PII no protected text is anywhere in what the walk received, and nothing failed", () => {
    const text = JSON.stringify(walked.uncleared);
    const leaks = walked.uncleared.flatMap((entry) => {
      const found = MARKERS.filter((m) => JSON.stringify(entry).includes(m));
      return found.length ? [`${(entry as { root: string }).root}: ${found.join(", ")}`] : [];
    });
    expect(leaks).toEqual([]);
    expect(text.includes(PROTECTED)).toBe(false);
    const errors = walked.uncleared.flatMap((entry) => ((entry as { result: ExecutionResult }).result.errors ?? []).map((e) => `${(entry as { root: string }).root}: ${e.message}`));
    expect(errors).toEqual([]);
  });

  test("with clearance:PII the same walk receives every piece of protected text: it reaches every place", () => {
    const text = JSON.stringify(walked.cleared);
    expect(MARKERS.filter((m) => !text.includes(m))).toEqual([]);
  });

  test("every text field of every type the walk reached is shown safe, or listed with its reason", () => {
    const unshown = textFieldsOf(schema, reached.types).filter((coordinate) => !answered.uncleared.has(coordinate) && !answered.cleared.has(coordinate) && !(coordinate in UNANSWERED));
    expect(unshown).toEqual([]);
    // What only clearance answers is guarded, by its own redactBy or its parent's.
    const clearedOnly = [...answered.cleared].filter((coordinate) => !answered.uncleared.has(coordinate)).sort();
    expect(clearedOnly).toEqual(CLEARED_ONLY);
    for (const coordinate of clearedOnly.filter((c) => !c.startsWith("ExecutionFailure."))) expect([coordinate, guardedFieldsOf(coordinate.split(".")[0]).includes(coordinate.split(".")[1])]).toEqual([coordinate, true]);
    // The list only shrinks: a listed field the walk does answer comes off it.
    expect(Object.keys(UNANSWERED).filter((coordinate) => answered.uncleared.has(coordinate) || answered.cleared.has(coordinate))).toEqual([]);
    expect([...reached.unwalkable]).toEqual([]);
  });
});
