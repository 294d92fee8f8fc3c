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

builder.queryType({});
builder.mutationType({});

/** The built schema, types sorted so the printed SDL is stable. */
export const schema = lexicographicSortSchema(builder.toSchema());
