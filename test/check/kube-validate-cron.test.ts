// A CronJob's schedule and timeZone as far as kube-apiserver's validation can be told without the cron
// grammar or the zone database: an object it accepts and one it refuses, and the releases that judge them.
import { describe, it } from "vitest";
import { accepts, type Obj, refuses } from "../support/api-server.ts";

const cron = (spec: Obj): Obj => ({
  apiVersion: "batch/v1",
  kind: "CronJob",
  metadata: { name: "nightly" },
  spec: {
    schedule: "0 3 * * *",
    jobTemplate: { spec: { template: { spec: { restartPolicy: "OnFailure", containers: [{ name: "job", image: "busybox:1.36" }] } } } },
    ...spec,
  },
});

describe("a CronJob's schedule (validateScheduleFormat, robfig/cron ParseStandard)", () => {
  it("has five fields, or a descriptor", () => {
    for (const schedule of ["0 3 * * MON-FRI", "*/5\t* * * *", "@daily", "@every 90m", "61 * * * *"]) accepts(cron({ schedule }));
    refuses(cron({ schedule: "" }), "spec.schedule", "the schedule is empty");
    refuses(cron({ schedule: "0 0 3 * * *" }), "spec.schedule", "has 6 fields");
    refuses(cron({ schedule: "*/5 * * *" }), "spec.schedule", "has 4 fields");
    refuses(cron({ schedule: "@fortnightly" }), "spec.schedule", "is not a schedule descriptor");
  });

  it("names no zone from 1.29: that is timeZone's", () => {
    refuses(cron({ schedule: "TZ=UTC 0 3 * * *" }), "spec.schedule", "set spec.timeZone");
    accepts(cron({ schedule: "CRON_TZ=UTC 0 3 * * *" }), "1.24");
  });
});

describe("a CronJob's timeZone (validateTimeZone, from 1.27)", () => {
  it("is an explicit IANA name", () => {
    accepts(cron({ timeZone: "Europe/Berlin" }));
    accepts(cron({ timeZone: "Etc/GMT+5" }));
    refuses(cron({ timeZone: "" }), "spec.timeZone", "timeZone is empty");
    refuses(cron({ timeZone: "Local" }), "spec.timeZone", "not an explicit one");
    refuses(cron({ timeZone: "Mars/../x" }), "spec.timeZone", "is not a time zone name");
    refuses(cron({ timeZone: "America/Ciudad_Juarez_X" }), "spec.timeZone", "is not a time zone name");
    accepts(cron({ timeZone: "" }), "1.25");
  });
});
