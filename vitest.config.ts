import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { REGISTRY_WIDE } from "./test/support/registry-wide.ts";

export default defineConfig({
  test: {
    // dist/ rebuilt first when stale (scripts/build.mjs --if-stale).
    globalSetup: ["test/support/global-setup.ts"],
    setupFiles: ["test/support/setup.ts"],
    // A worker per core: vitest's own default leaves one core to its main
    // process, which mostly waits; on 2 cores that is one worker.
    maxWorkers: availableParallelism(),
    // Tests spawn real processes (node, bun, kubectl) and yield between long
    // steps (test/support/breathe.ts); on a busy 2-core machine they take
    // minutes. This is a ceiling against hangs, not a speed bar.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    projects: [
      { extends: true, test: { name: "rigging", include: ["test/**/*.test.ts"] } },
      // The registry-wide tests again, with a fourth system registered in the real registry (test/support/setup.ts).
      { extends: true, test: { name: "with-lantern", include: [...REGISTRY_WIDE], env: { RIGGING_TEST_EXTRA_SYSTEM: "lantern" } } },
    ],
  },
});
