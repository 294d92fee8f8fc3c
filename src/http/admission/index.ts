export { admitHeavyBodies, type BodyAdmission, HEAVY_COST, HEAVY_INPUT_ITEMS, useHeavyWorkAdmission } from "./heavy-work";
export { type AdmissionLimits, type AdmissionStats, HeavyWorkQueue } from "./heavy-work-queue";
export { OVERLOADED_RETRY_AFTER_SECONDS, OverloadedError } from "./overloaded-error";
