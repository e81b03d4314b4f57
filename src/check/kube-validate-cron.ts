// What kube-apiserver refuses in a CronJob's schedule and timeZone that can be told without the cron
// parser's field grammar or the time zone database (pkg/apis/batch/validation validateScheduleFormat,
// validateTimeZone; robfig/cron/v3 ParseStandard). A field's values and a zone's existence are not judged.
import { GO_SPACE } from "../k8s/validation.ts";
import { atLeast, type Ctx, type Path, report, show, str } from "./kube-validate-meta.ts";

/** robfig/cron's descriptors; "@every DURATION" is not judged. */
const DESCRIPTORS = new Set(["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]);
/** What strings.Fields splits on. */
const GO_SPACES = new RegExp(`${GO_SPACE.source}+`);
/** validTimeZoneCharacters: each part of a zone name. */
const ZONE_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

export function checkSchedule(spec: Record<string, unknown>, ctx: Ctx): void {
  const schedule = str(spec.schedule);
  const path: Path = ["spec", "schedule"];
  if (schedule !== undefined) {
    if (schedule === "") report(ctx, path, "the schedule is empty: write five fields, minute hour day-of-month month day-of-week");
    // From 1.29 (1.24's source has no such check; releases between not read): the zone goes in timeZone.
    else if (schedule.includes("TZ")) {
      if (atLeast(ctx, 29)) report(ctx, path, `${show(schedule)}: TZ and CRON_TZ are not taken in a schedule: set spec.timeZone`);
    } else if (schedule.startsWith("@")) {
      if (!DESCRIPTORS.has(schedule) && !schedule.startsWith("@every "))
        report(ctx, path, `${show(schedule)} is not a schedule descriptor: use @yearly, @monthly, @weekly, @daily, @hourly or @every DURATION`);
    } else {
      const fields = schedule.split(GO_SPACES).filter((f) => f !== "");
      if (fields.length !== 5)
        report(
          ctx,
          path,
          `${show(schedule)} has ${fields.length} fields: a schedule has exactly five (minute hour day-of-month month day-of-week), no seconds`,
        );
    }
  }
  // The field is served from 1.27 (dropped before, behind the CronJobTimeZone gate).
  const zone = spec.timeZone;
  if (typeof zone !== "string" || !atLeast(ctx, 27)) return;
  const at: Path = ["spec", "timeZone"];
  if (zone === "") report(ctx, at, "timeZone is empty: leave it out, or name an IANA zone such as Europe/Berlin");
  else if (zone.split("/").some((part) => part === "." || part === ".." || part.startsWith("-") || !ZONE_PART.test(part)))
    report(ctx, at, `${show(zone)} is not a time zone name: IANA names such as Europe/Berlin or Etc/UTC`);
  else if (zone.toLowerCase() === "local") report(ctx, at, '"Local" is the node\'s zone, not an explicit one: name an IANA zone such as Etc/UTC');
}
