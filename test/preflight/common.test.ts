import { describe, expect, it } from "vitest";
import { type CheckResult, resultsNote } from "../../src/preflight/common.ts";

const tls: CheckResult = { id: "D6", check: "tls", outcome: "fail", message: "another certificate", fix: "let the Server terminate TLS itself (D6)" };
const pg: CheckResult = { id: "CS-12", check: "postgres", outcome: "pass", message: "reachable" };

describe("the note under a preflight or pin text report", () => {
  it("says whose a decision ID is, once, for the text report only", () => {
    expect(resultsNote([tls, pg], "text")).toBe("D6 is a decision of the Compass Server-on-Kubernetes design (docs/glossary.md).\n");
    expect(resultsNote([tls], "json")).toBe("");
  });

  it("is empty when the report names no decision", () => {
    expect(resultsNote([pg], "text")).toBe("");
  });
});
