// The Server's forge: GitHub Apps and scope enforcement as compass-server reads them.
import { z } from "zod";
import { egressRuleSchema } from "../../values/common-values.ts";
import { DNS1123_SUBDOMAIN } from "../../k8s/names.ts";
import { fail, once, refineBy, refused, req, type IssueSink } from "../../values/values.ts";
import { secretKeyReference } from "./secret-refs.ts";

const appId = (what: string) =>
  z
    .number(req("CS-04", `${what} is the App's numeric ID, such as 123456 (a number, not a string)`))
    .int(req("CS-04", `${what} is a whole number`))
    .min(1, req("CS-04", `${what} is a positive number`))
    .max(Number.MAX_SAFE_INTEGER, req("CS-04", `${what} is at most ${Number.MAX_SAFE_INTEGER}`));

const REPO = /^[A-Za-z0-9][-A-Za-z0-9_.]{0,99}\/[-A-Za-z0-9_.]{1,100}$/;
/** account:provider:host:repo, as the Server parses a grant; the list is joined with commas, so no part holds one. */
const SCOPE_GRANT =
  /^[^\s:,]{1,100}:(github|linear):[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*:(\*|[A-Za-z0-9][-A-Za-z0-9_.]{0,99}\/[-A-Za-z0-9_.]{1,100})$/;
const SCOPE_GRANT_FIX = "write a grant as account:provider:host:repo, such as alice:github:github.com:rigelbuild/compass (repo owner/name or *)";

export const forgeSchema = once(() =>
  refineBy(
    z.strictObject({
      host: z
        .string()
        .max(253, req("CS-04", "forge.host is a DNS name"))
        .regex(DNS1123_SUBDOMAIN, req("CS-04", "is not a host name", "forge.host is github.com or your GitHub Enterprise Server host, without a scheme"))
        .default("github.com")
        .meta({ description: "--forge-host: github.com or a GitHub Enterprise Server host" }),
      repos: z
        .array(z.string().regex(REPO, req("CS-04", "is not owner/name", "a repository is owner/name, such as rigelbuild/compass")))
        .optional()
        .meta({ description: "--forge-repos: owner/name repositories seeded for board ingestion (insert-only)" }),
      appId: appId("forge.appId").meta({ description: "--forge-app-id: the primary GitHub App's ID" }),
      installationId: appId("forge.installationId").meta({ description: "--forge-installation-id: the primary App's installation ID" }),
      appKeySecret: secretKeyReference("CS-04", "the primary App's private key", "private-key.pem").meta({
        description: "The Secret key holding the primary App's PEM key; --forge-app-key-secret names it in SecretSpec",
      }),
      appWebhookSecret: secretKeyReference("CS-04", "the primary App's webhook secret", "webhook-secret").meta({
        description: "The Secret key holding the webhook signing secret; --forge-app-webhook-secret names it in SecretSpec",
      }),
      reviewerAppId: appId("forge.reviewerAppId").optional().meta({ description: "--forge-reviewer-app-id: the reviewer App (forge writes need both Apps)" }),
      reviewerAppInstallationId: appId("forge.reviewerAppInstallationId").optional().meta({ description: "--forge-reviewer-app-installation-id" }),
      reviewerAppKeySecret: secretKeyReference("CS-04", "the reviewer App's private key", "private-key.pem")
        .optional()
        .meta({ description: "The Secret key holding the reviewer App's PEM key; --forge-reviewer-app-key-secret names it" }),
      scopeGrants: z
        .array(
          z
            .string()
            .max(400, req("CS-13", "a scope grant is account:provider:host:repo"))
            .regex(SCOPE_GRANT, req("CS-13", "is not account:provider:host:repo", SCOPE_GRANT_FIX)),
        )
        .optional()
        .meta({
          description:
            "--forge-scope-grants: account:provider:host:repo grants (provider github or linear; repo owner/name or *), seeded insert-only. Agent forge writes need one while enforcement is on",
        }),
      disableScopeEnforcement: z.boolean(req("CS-13", "forge.disableScopeEnforcement is true or false")).default(false).meta({
        description:
          "--forge-disable-scope-enforcement=true: agent forge writes ungated (a single trust domain only). Default false: enforced, as the Server defaults",
      }),
      enforceScopes: refused(
        "CS-13",
        "the released Server removed --forge-enforce-scopes: enforcement is on by default; list forge.scopeGrants, or set forge.disableScopeEnforcement: true",
      ),
      egress: z.array(egressRuleSchema("CS-11")).min(1, req("CS-11", "list the forge's address ranges, such as {cidr: 140.82.112.0/20, ports: [{port: 443}]}")),
      app: refused(
        "CS-13",
        "the Server takes the App as forge.appId, forge.installationId, forge.appKeySecret and forge.appWebhookSecret (its --forge-* flags)",
      ),
      reviewerApp: refused("CS-13", "the Server takes the reviewer App as forge.reviewerAppId, forge.reviewerAppInstallationId and forge.reviewerAppKeySecret"),
      url: refused("CS-13", "the Server takes a host, not a URL: set forge.host (--forge-host), such as github.com"),
      provider: refused("CS-13", "the Server's forge is GitHub (Apps); remove provider"),
    }),
    checkReviewerApp,
  ),
);

/** The reviewer App is given whole or not at all (CS-04). */
export function checkReviewerApp(f: { reviewerAppId?: number; reviewerAppInstallationId?: number; reviewerAppKeySecret?: object }, ctx: IssueSink): void {
  const reviewer = [f.reviewerAppId, f.reviewerAppInstallationId, f.reviewerAppKeySecret];
  if (reviewer.some((x) => x !== undefined) && reviewer.some((x) => x === undefined)) {
    const missing = (["reviewerAppId", "reviewerAppInstallationId", "reviewerAppKeySecret"] as const).find((k) => f[k] === undefined)!;
    fail(
      ctx,
      [missing],
      "CS-04",
      "is missing while the reviewer App is configured",
      "give the reviewer App's ID, installation ID and key Secret together, or none of them",
    );
  }
}

/** With scope enforcement on by default, the reviewer App's agent writes each need a grant. */
export function checkForgeWrites(
  f: { reviewerAppId?: number; scopeGrants?: readonly string[]; disableScopeEnforcement: boolean },
  ctx: IssueSink,
  at: PropertyKey[] = [],
): void {
  if (f.reviewerAppId !== undefined && !f.disableScopeEnforcement && (f.scopeGrants ?? []).length === 0)
    fail(
      ctx,
      [...at, "scopeGrants"],
      "CS-13",
      "is missing: with the reviewer App and scope enforcement on (the Server's default), the Server refuses every agent forge write",
      "list the grants as account:provider:host:repo (--forge-scope-grants), or set forge.disableScopeEnforcement: true for a single trust domain",
    );
}
