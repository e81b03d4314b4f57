// Secret stores (RP-07): the secret manager the operator already runs,
// reached through workload identity, never through static keys.
import { z } from "zod";
import { httpsUrl } from "../../core/common-values.ts";
import { once, req, tagged } from "../../core/values.ts";
import { staticKeyGuards } from "./guards.ts";

const NO_TOKEN = "remove it: the runner authenticates to Vault through workload identity (the role), never with a token in values (G-04)";

export const awsSecretStore = once(() =>
  z
    .strictObject({
      mode: z.literal("aws"),
      ...staticKeyGuards(),
    })
    .meta({ description: "AWS Secrets Manager: RUNNER_SECRET_STORE_MODE=aws, RUNNER_AWS_CRED_MODE=chain (IRSA resolves the credentials)" }),
);

export const vaultSecretStore = once(() =>
  z
    .strictObject({
      mode: z.literal("vault"),
      address: httpsUrl("RP-07", "secretStore.address").meta({ description: "The Vault server, https:// (RUNNER_VAULT_ADDR)" }),
      mount: z
        .string()
        .regex(
          /^(?!.*\/(?![A-Za-z0-9]))[A-Za-z0-9][-A-Za-z0-9_./]*$/,
          req("RP-07", "the KV v2 mount path, such as secret or kv/rootpilot, without leading or trailing /", "is not a Vault mount path"),
        )
        .default("secret")
        .meta({ description: "The KV v2 secrets engine mount (RUNNER_VAULT_KV_MOUNT)" }),
      role: z
        .string(req("RP-07", "set secretStore.role to the Vault role bound to the runner's workload identity"))
        .regex(/^[A-Za-z0-9][-A-Za-z0-9_.@]*$/, req("RP-07", "a Vault role name is made of letters, digits and -_.@", "is not a Vault role name"))
        .meta({ description: "The Vault role the runner logs in as through workload identity (RUNNER_VAULT_ROLE)" }),
      token: z.never(req("RP-07", NO_TOKEN, "is a static Vault token")).optional(),
      ...staticKeyGuards(),
    })
    .meta({ description: "HashiCorp Vault KV v2: RUNNER_SECRET_STORE_MODE=vault" }),
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
