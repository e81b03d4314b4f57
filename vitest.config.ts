import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/support/setup.ts"],
    // Tests spawn real processes (node, bun, kubectl) and yield between long
    // steps (test/support/breathe.ts); on a busy 2-core machine they take
    // minutes. This is a ceiling against hangs, not a speed bar.
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
