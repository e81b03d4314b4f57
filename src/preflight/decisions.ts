// The Compass Server-on-Kubernetes design's decisions that only live systems can show, with the command that checks each.

export interface LiveDecision {
  id: string;
  /** The design's words for the decision. */
  decision: string;
  requirements: string[];
  /** What the command finds out. */
  checked: string;
  command: string;
}

export const LIVE_DECISIONS: readonly LiveDecision[] = [
  {
    id: "D3",
    decision: "Postgres is user-provided; the owner is a superuser, or a CREATEROLE + BYPASSRLS role on PostgreSQL 16 or later",
    requirements: ["CS-12"],
    checked: "the server's version is 16 or later and the database owner has the attributes; a connecting role other than the owner is a warning",
    command: "`rigging preflight postgres`",
  },
  {
    id: "D5",
    decision: "NATS with password auth",
    requirements: ["CS-07", "CS-13"],
    checked: "a client without credentials is refused, the Server's user and password are taken, and JetStream is enabled for its account",
    command: "`rigging preflight nats URL`",
  },
  {
    id: "D6",
    decision: "the Server terminates TLS (and the Runner verifies it under serverName, P9)",
    requirements: ["CS-08", "CR-14"],
    checked:
      "the certificate chain verifies to the Runner's serverCA, names serverName, is valid for --min-days more and matches its key; live, the endpoint speaks TLS 1.3 and refuses 1.2, and presents that certificate",
    command: "`rigging preflight tls`",
  },
  {
    id: "D8",
    decision: "paired main-<n>-<sha12> tags, with only the digest written to pod specs",
    requirements: ["G-05"],
    checked: "each tag is followed to the digest it names and written beside it; with --check, a recorded digest that is no longer its tag's fails",
    command: "`rigging pin VALUES`, `rigging pin --check VALUES`",
  },
  {
    id: "D9",
    decision: "every image is public, and registry reads are anonymous",
    requirements: ["G-09"],
    checked:
      "each image is read without credentials (following the anonymous bearer-token challenge); a registry that demands credentials makes the image not public",
    command: "`rigging pin VALUES`",
  },
  {
    id: "D10",
    decision: "every image is multi-arch (amd64 + arm64), except the Runner, amd64-only until an arm64 KVM boot passes",
    requirements: ["CS-10", "CR-13"],
    checked: "the Server's, NATS's and the Rootpilot runner's digests are image indexes with linux/amd64 and linux/arm64; the Runner's holds linux/amd64",
    command: "`rigging pin VALUES`",
  },
];

/** The docs section, rendered with the rules table's own cell writer. */
export function decisionsSection(row: (cells: readonly string[]) => string): string[] {
  return [
    "## Design decisions checked against live systems",
    "",
    "Some of the Compass Server-on-Kubernetes design's decisions concern what no values file or manifest shows: a",
    "database, a NATS server, a certificate, a registry. These commands check them",
    "against the live system (see docs/preflight.md and docs/pin.md); each exits 1",
    "when a check fails, so CI can run it.",
    "",
    row(["Decision", "Requirements", "Checked", "Command"]),
    row(["---", "---", "---", "---"]),
    ...LIVE_DECISIONS.map((d) => row([`${d.id}: ${d.decision}`, d.requirements.join(", "), d.checked, d.command])),
    "",
  ];
}
