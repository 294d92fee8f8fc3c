import { lexicographicSortSchema } from "graphql";
import { builder } from "./builder";
import "./scalars";
import "./node";
import "./artifact";
import "./execution";
import "./operation";
import "./lineage";
import "./prov-json";
import "./graph";
import "./lineage-graph";
import "./errors";
import "./recording";
import "./composite";
import "./access";
import "./column-lineage";
import "./dataset";
import "./openlineage";
import "./policy";
import "./compliance";
import "./privacy";
import "./purposes";
import "./subscription";
import "./integrity";
import "./search";
import "./listings";

builder.queryType({ description: "What provgraph answers: lineage and provenance, search and listings, evidence, compliance and privacy. Every field needs the `read` scope unless it says otherwise; values a token may not read come back redacted." });
builder.mutationType({ description: "What provgraph records and administers. Recording needs the `write` scope, administration `admin`; a refused mutation leaves the store as it was." });

/** The built schema, types sorted so the printed SDL is stable. */
export const schema = lexicographicSortSchema(builder.toSchema());
