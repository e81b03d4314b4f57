// The request matrix (src/admission/matrix.ts) is a table the judge runs in
// order: every request it names is one the judge makes for a Runner, every
// identity it names exists, and a group is read only after the row that finds it.
import { describe, expect, it } from "vitest";
import { ACTORS } from "../../src/admission/actors.ts";
import { MATRIX, type GroupName } from "../../src/admission/matrix.ts";
import { requestsFor } from "../../src/admission/requests.ts";

const ds = { apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: "runner", namespace: "ns" } };
const requests = requestsFor({ namespace: "ns", serviceAccount: "runner", daemonSet: ds, anchor: ds });
const ALWAYS: ReadonlySet<string> = new Set(["fixed", "named", "tokenOthers"]);

describe("the request matrix", () => {
  it("names only requests the judge makes and identities it knows", () => {
    for (const row of MATRIX) {
      expect(Object.keys(requests)).toContain(row.request);
      const who = row.kind === "expect" ? row.who : row.among;
      for (const name of typeof who === "string" ? [who] : who)
        expect([...Object.keys(ACTORS), "fixed", "named", "glass", "creators", "tokenOthers"]).toContain(name);
    }
  });

  it("reads a found group only after the row that finds it", () => {
    const found = new Set<string>(ALWAYS);
    for (const row of MATRIX) {
      const who = row.kind === "expect" ? row.who : row.among;
      for (const name of typeof who === "string" ? [who] : who)
        if (!(name in ACTORS)) expect(found, `${row.kind} ${row.request} reads ${name}`).toContain(name);
      if (row.kind === "allowed") found.add(row.as as GroupName);
    }
  });

  it("covers each part of CR-06: exec, attach, ephemeral containers, port-forward, proxy, pod create, DaemonSet changes, token requests", () => {
    const denied = new Set(MATRIX.filter((row) => row.kind === "expect" && row.expected === "deny").map((row) => row.request));
    expect([...denied].sort()).toEqual(["attach", "createDs", "createPod", "deleteDs", "ephemeral", "exec", "portforward", "proxy", "token", "updateDs"]);
  });
});
