import { DateTimeResolver, JSONResolver } from "graphql-scalars";
import { builder } from "../builder";

builder.addScalarType("JSON", JSONResolver);
builder.addScalarType("DateTime", DateTimeResolver);
