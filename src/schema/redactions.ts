import { type Withholding } from "../auth/pothos";
import { builder } from "./builder";

/**
 * Why a field is redacted (a type's `redactions` marker beside `redacted`): for each policy tag
 * that withholds it, what the viewer lacks — the tag's clearance, or a purpose the tag allows.
 */
const RedactionReasonEnum = builder.enumType("RedactionReasonKind", {
  description: "What you lack to see a value a policy tag guards.",
  values: {
    CLEARANCE: { description: "Your token holds no clearance:<TAG> scope for the tag." },
    PURPOSE: { description: "The tag declares the purposes its data may serve, and your request states none of them (X-Provgraph-Purpose; over graphql-ws connectionParams.purpose)." },
  },
});

const RedactionReasonObject = builder.objectRef<Withholding>("RedactionReason").implement({
  description: "One policy tag that withholds a field from you, and what you lack for it.",
  fields: (t) => ({
    tag: t.exposeString("tag", { description: "The policy tag that withholds the field (PII, PCI, …)." }),
    missing: t.field({ type: RedactionReasonEnum, description: "What you lack for the tag: its clearance, or a purpose it allows.", resolve: (w) => w.missing }),
    purpose: t.string({ nullable: true, description: "PURPOSE: the purpose your request stated (null: none).", resolve: (w) => (w.missing === "PURPOSE" ? w.purpose : null) }),
    allowedPurposes: t.stringList({ nullable: true, description: "PURPOSE: the purposes the tag allows.", resolve: (w) => (w.missing === "PURPOSE" ? [...w.allowedPurposes] : null) }),
  }),
});

export const RedactionObject = builder.objectRef<{ field: string; reasons: Withholding[] }>("Redaction").implement({
  description: "A field redacted for you, with why.",
  fields: (t) => ({
    field: t.exposeString("field", { description: "The field's name, as `redacted` lists it." }),
    reasons: t.field({ type: [RedactionReasonObject], description: "Each policy tag that withholds the field, with what you lack for it (never empty).", resolve: (r) => r.reasons }),
  }),
});
