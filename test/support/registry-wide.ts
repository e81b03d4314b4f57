// The tests that judge every registered system. test/systems/extra-system.test.ts
// runs them again with the Lantern (test/fixtures/systems/lantern) registered in
// the real registry, and fails on a test that reads the registry's lists but is
// in neither table below.

/** Tests that run over every registered system, a fixture system included. */
export const REGISTRY_WIDE = [
  "test/systems/registry.test.ts",
  "test/rules/requirement-coverage.test.ts",
  "test/rules/requirement-data.test.ts",
  "test/check/corpus.test.ts",
  "test/check/corpus-layout.test.ts",
  "test/cli/rules.test.ts",
  "test/cli/explain.test.ts",
  "test/cli/schema.test.ts",
  "test/values/variants.test.ts",
  "test/values/validators-agree.test.ts",
  "test/support/values-arbitrary.test.ts",
  "test/hardening/values-properties.test.ts",
] as const;

/** Tests that read the registry but judge what a fixture system cannot have, and why. */
export const NOT_REGISTRY_WIDE: Readonly<Record<string, string>> = {
  "test/docs/values-keys.test.ts": "reads each system's page under docs/; the fixture system has none",
  "test/systems/extra-system.test.ts": "registers the fixture system itself and runs this list",
  "test/layers.test.ts": "reads src/ files; the fixture system's files are not under src/",
  "test/seams.test.ts": "reads the build's chunks of src/systems/; the fixture system is in no bundle",
  "test/ship/binary.test.ts": "runs the built command, which holds only the systems under src/",
  "test/ship/fn.test.ts": "runs the built command, which holds only the systems under src/",
  "test/ship/integrations.test.ts": "compares committed integration files generated for the systems under src/",
  "test/ship/values-resource.test.ts": "compares the committed values resource generated for the systems under src/",
  "test/ship/completion.test.ts": "completes from the built command, which holds only the systems under src/",
  "test/diff/consequences.test.ts": "passes its own systems to diff, not the registry's",
  "test/hardening/linear-time.test.ts": "times the systems under src/ one by one, by name",
};
