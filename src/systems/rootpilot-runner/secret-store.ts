// Secret stores (RP-07): the secret manager the operator already runs,
// reached through workload identity, never through static keys.
import { z } from "zod";
import { once, refineBy, refused, req, tagged, type IssueSink } from "../../values/values.ts";
import { looksLikeSecret } from "../../rules/general.ts";
import { staticKeyGuards } from "./guards.ts";
import { ENV, STATIC_AWS_ENV } from "./interface.ts";

/** An environment variable name as a shell and the runner's process read it. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Names rigging writes itself, and the static credentials no setting may carry. */
const RESERVED = [...Object.values(ENV), ...STATIC_AWS_ENV];

const NO_TOKEN = "remove it: the runner authenticates to Vault through workload identity (the role), never with a token in values (G-04)";

export const awsSecretStore = once(() =>
  z
    .strictObject({
      mode: z.literal("aws"),
      settings: storeSettings(),
      ...staticKeyGuards(),
    })
    .meta({ description: "AWS Secrets Manager: RUNNER_SECRET_STORE_MODE=aws, RUNNER_AWS_CRED_MODE=chain (IRSA resolves the credentials)" }),
);

/** Store settings the Rootpilot Kubernetes guide does not name, passed through as variables. */
export const storeSettings = once(() =>
  refineBy(
    z.record(
      z
        .string()
        .max(128, req("RP-07", "a variable name is at most 128 characters"))
        .regex(ENV_NAME, req("RP-07", "is not a variable name", "a variable name is letters, digits and _, not starting with a digit, such as VAULT_ADDR")),
      z
        .string(req("RP-07", "expected a string", "give each setting's value as a string; quote numbers and booleans"))
        .max(4096, req("RP-07", "a setting is at most 4096 characters")),
    ),
    checkStoreSettings,
  )
    .optional()
    .meta({
      description:
        "Variables the runner's secret store reads that the Rootpilot Kubernetes guide does not name (such as your Vault address or role), by the names your runner reads: written to the pod as given. No credential: the store resolves through workload identity",
    }),
);

/** The variables rigging writes itself may not be set twice (RP-07); a name that says it holds a secret is no setting (G-04). */
export function checkStoreSettings(settings: Record<string, string>, ctx: IssueSink): void {
  for (const name of Object.keys(settings)) {
    if (looksLikeSecret(name))
      ctx.addIssue({
        code: "custom",
        path: [name],
        message: tagged(
          "G-04",
          "names a secret, and a setting is written to the pod as an inline value",
          "keep secrets out of settings: the store resolves them through workload identity; rename a setting that holds none (a TTL, an address)",
        ),
      });
    if ((RESERVED as readonly string[]).includes(name))
      ctx.addIssue({
        code: "custom",
        path: [name],
        message: tagged(
          "RP-07",
          "is a variable rigging writes from other values keys",
          "remove it here: set it through its own values key (rigging schema RootpilotRunner)",
        ),
      });
  }
}

const NO_INVENTED = (what: string) =>
  `the Rootpilot Kubernetes guide names no variable for the Vault ${what}: put the one your runner reads in secretStore.settings, such as settings: {<NAME>: <value>}`;

export const vaultSecretStore = once(() =>
  z
    .strictObject({
      mode: z.literal("vault"),
      settings: storeSettings(),
      address: refused("RP-07", NO_INVENTED("address")),
      mount: refused("RP-07", NO_INVENTED("KV mount")),
      role: refused("RP-07", NO_INVENTED("role")),
      token: z.never(req("RP-07", "is a static Vault token", NO_TOKEN)).optional(),
      ...staticKeyGuards(),
    })
    .meta({ description: "HashiCorp Vault KV v2: RUNNER_SECRET_STORE_MODE=vault, with the settings your runner reads" }),
);

export const secretStoreSchema = once(() =>
  z
    .discriminatedUnion("mode", [awsSecretStore(), vaultSecretStore()], {
      error: (issue) =>
        tagged(
          "RP-07",
          issue.code === "invalid_union" ? modeProblem((issue.input as { mode?: unknown })?.mode) : "expected a mapping with mode: aws or vault",
          "set mode: aws (AWS Secrets Manager) or mode: vault (HashiCorp Vault KV v2); both resolve through workload identity",
        ),
    })
    .optional()
    .meta({ description: "Where the runner reads secrets: AWS Secrets Manager or Vault KV v2, through workload identity (RP-07)" }),
);

function modeProblem(mode: unknown): string {
  return mode === undefined ? "is missing" : "is not aws or vault";
}

export type SecretStore = z.output<ReturnType<typeof secretStoreSchema>>;
