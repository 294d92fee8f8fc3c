import { undescribed } from "./support/schema-descriptions";

test("every type, field, argument and enum value of the schema has a description", () => {
  expect(undescribed()).toEqual([]);
});
