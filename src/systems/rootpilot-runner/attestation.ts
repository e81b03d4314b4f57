// Attestation (RP-06): one branch per provider, so no file half-configures another.
import { posix } from "node:path";
import { z } from "zod";
import { once, refineBy, req, tagged, type IssueSink } from "../../values/values.ts";
import { podFilePathProblem, isUnder, staticKeyGuards } from "./guards.ts";
import {
  AWS_REGION,
  DEFAULT_TOKEN_SECONDS,
  ENROLL_AUDIENCE,
  GKE_TOKEN_PATH,
  HOME_DIR,
  MISSING_REGION_ERROR,
  ROLE_ARN,
  TMP_DIR,
  TOKEN_MAX_SECONDS,
  TOKEN_MIN_SECONDS,
} from "./interface.ts";

const AUDIENCE_WHY =
  `the control plane accepts only tokens projected for ${ENROLL_AUDIENCE}: the audience is what stops a KSA token projected for some other service from being replayed into an enrollment. ` +
  "Any other audience, or none, mounts and reads fine and then fails the enroll as attestation_invalid, exactly what a bad credential would produce";

const LIFETIME = `a projected token lives ${TOKEN_MIN_SECONDS} s to ${TOKEN_MAX_SECONDS} s (default ${DEFAULT_TOKEN_SECONDS})`;

const EKS_NOT_OIDC =
  "on EKS the runner attests with aws-sts: it signs a GetCallerIdentity request through the SDK's default chain, which is IRSA there; eks-oidc is not the EKS path. Use provider: eks (mode aws-sts is implied)";

const REGION_FIX = `set attestation.region to the cluster's AWS region, such as eu-west-1: it becomes AWS_REGION. The region is not guessed on purpose: the control plane accepts only regions from its allowlist, and a guess surfaces as attestation_invalid`;

const region = (what: string) =>
  z
    .string({
      error: (issue) =>
        tagged(
          "RP-06",
          issue.input === undefined ? `is missing: without it the runner fails at boot with \`${MISSING_REGION_ERROR}\`` : "expected an AWS region name",
          REGION_FIX,
        ),
    })
    .regex(AWS_REGION, req("RP-06", "is not an AWS region name", `${what} is an AWS region name such as us-east-1 or eu-central-1`));

export function checkTokenPath(path: string, ctx: IssueSink): void {
  const problem =
    podFilePathProblem(path) ??
    ([TMP_DIR, HOME_DIR].some((dir) => isUnder(posix.dirname(path), dir))
      ? `is under ${TMP_DIR} or ${HOME_DIR}, which are writable emptyDirs, not the token volume`
      : undefined);
  if (problem)
    ctx.addIssue({
      code: "custom",
      input: path,
      message: tagged("RP-06", problem, `give the file path the token volume is mounted for, or leave it out for ${GKE_TOKEN_PATH}`),
    });
}

export function isEnrollAudience(audience: string): boolean {
  return audience === ENROLL_AUDIENCE;
}

const tokenPath = once(() =>
  refineBy(z.string(), checkTokenPath)
    .default(GKE_TOKEN_PATH)
    .meta({ description: `Where the runner reads the projected token; RUNNER_GKE_TOKEN_PATH is set only when it differs from ${GKE_TOKEN_PATH}` }),
);

export const gkeAttestation = once(() =>
  z
    .strictObject({
      provider: z.literal("gke"),
      mode: z.literal("gke-oidc", req("RP-06", "on GKE the runner attests with gke-oidc; leave mode out")).optional(),
      audience: z
        .string()
        .refine(isEnrollAudience, {
          error: (_issue) => tagged("RP-06", `is not ${ENROLL_AUDIENCE}`, `set audience: ${ENROLL_AUDIENCE} or leave it out; ${AUDIENCE_WHY}`),
        })
        .default(ENROLL_AUDIENCE)
        .meta({ description: `Fixed: ${ENROLL_AUDIENCE}. Any other value is refused (RP-06)` }),
      expirationSeconds: z
        .number(req("RP-06", LIFETIME))
        .int(req("RP-06", LIFETIME))
        .min(TOKEN_MIN_SECONDS, req("RP-06", LIFETIME))
        .max(TOKEN_MAX_SECONDS, req("RP-06", LIFETIME))
        .default(DEFAULT_TOKEN_SECONDS),
      tokenPath: tokenPath(),
      ...staticKeyGuards(),
    })
    .meta({ description: "GKE: RUNNER_ATTESTATION_MODE=gke-oidc with a projected ServiceAccount token for rootpilot-enroll" }),
);

export const eksAttestation = once(() =>
  refineBy(
    z.strictObject({
      provider: z.literal("eks"),
      mode: z.literal("aws-sts", req("RP-06", "is not aws-sts", EKS_NOT_OIDC)).optional(),
      region: region("attestation.region").meta({ description: "AWS_REGION; required (RUNNER_ATTESTATION_MODE=aws-sts requires AWS_REGION)" }),
      roleArn: z
        .string(req("RP-06", "set attestation.roleArn to the IAM role IRSA assumes, such as arn:aws:iam::123456789012:role/rootpilot-runner"))
        .regex(ROLE_ARN, req("RP-06", "is not an IAM role ARN", "an IAM role ARN is arn:aws[-cn|-us-gov]:iam::<12-digit account>:role/<optional path/><name>"))
        .meta({ description: "The IAM role for IRSA: the ServiceAccount annotation eks.amazonaws.com/role-arn" }),
      regionAllowlist: z
        .array(region("each regionAllowlist entry"))
        .min(1, req("RP-06", "list the control plane's accepted regions, or leave regionAllowlist out"))
        .optional()
        .meta({ description: "The control plane's region allowlist, when known: region must be in it" }),
      ...staticKeyGuards(),
    }),
    checkRegionAllowed,
  ).meta({ description: "EKS: RUNNER_ATTESTATION_MODE=aws-sts through IRSA; AWS_REGION required" }),
);

export function checkRegionAllowed(v: { region: string; regionAllowlist?: string[] }, ctx: IssueSink): void {
  if (v.regionAllowlist && !v.regionAllowlist.includes(v.region)) {
    ctx.addIssue({
      code: "custom",
      path: ["region"],
      message: tagged(
        "RP-06",
        `is not in regionAllowlist (${v.regionAllowlist.join(", ")})`,
        "the control plane accepts only regions from its allowlist; anything else fails as attestation_invalid, which reads like a credential problem. Run the runner in an allowed region, or have the allowlist extended",
      ),
    });
  }
}

function providerProblem(input: unknown): string {
  const provider = input !== null && typeof input === "object" ? (input as Record<string, unknown>).provider : undefined;
  if (provider === undefined) return "is missing";
  if (provider === "eks-oidc") return "is not an attestation provider: eks-oidc is not how the runner attests on EKS";
  return "is not gke or eks";
}

export const attestationSchema = once(() =>
  z
    .discriminatedUnion("provider", [gkeAttestation(), eksAttestation()], {
      error: (issue) =>
        issue.code === "invalid_union"
          ? tagged(
              "RP-06",
              providerProblem(issue.input),
              (issue.input as { provider?: unknown })?.provider === "eks-oidc"
                ? EKS_NOT_OIDC
                : "set provider: gke (gke-oidc, projected token) or provider: eks (aws-sts through IRSA)",
            )
          : tagged(
              "RP-06",
              issue.input === undefined ? "is missing" : "expected a mapping with provider: gke or eks",
              "write attestation: {provider: gke} or attestation: {provider: eks, region: ..., roleArn: ...}",
            ),
    })
    .meta({ description: "How the runner proves who it is to the control plane: one choice per provider (RP-06)" }),
);

export type Attestation = z.output<ReturnType<typeof attestationSchema>>;
export type GkeAttestation = z.output<ReturnType<typeof gkeAttestation>>;
export type EksAttestation = z.output<ReturnType<typeof eksAttestation>>;
