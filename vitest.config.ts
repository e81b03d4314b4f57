import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/support/setup.ts"],
    // Tests spawn real processes (node, bun, kubectl); give them room on a
    // shared 2-core machine. This is a ceiling against hangs, not a speed bar.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
