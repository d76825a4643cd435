// The organiser's "new tournament" form: team names pasted one per line, groups, how many go
// through, minutes, break, start time, pitches; "Preview" draws the groups and the whole schedule
// (computed in the page with the server's rules) or names every rule broken; "Create" sends it.

import { h, replace } from "./dom.js";
import { t } from "./i18n.js";
import { GROUP_COUNTS, groupName, planMatches, planProblems } from "./tournament-plan.js";
import { TEXT } from "./tournament-text.js";
import { placeText, stageText, timeText } from "./tournament.js";

const WORDS = {
  title: t("tour.new_tournament"),
  name: t("org.name"),
  teams: t("tour.form_teams"),
  groups: t("tour.form_groups"),
  advance: t("tour.form_advance"),
  matchMinutes: t("tour.form_match_minutes"),
  breakMinutes: t("tour.form_break_minutes"),
  startsAt: t("tour.form_start_time"),
  pitches: t("tour.form_pitches"),
  thirdPlace: t("tour.form_third_place"),
  preview: t("tour.preview"),
  create: t("tour.create"),
  previewTitle: (name) => t("tour.preview_of", { name }),
  groupsTitle: t("tour.form_groups"),
  scheduleTitle: t("tour.schedule"),
  problemsTitle: t("tour.fix_these_first"),
  summary: (matches, slots, end) => t("tour.preview_summary", { matches, slots, end }),
  teamsCount: (count) => t("tour.teams_count", { count }),
  changed: t("tour.form_changed"),
  defaultName: t("tour.default_name"),
};

/**
 * Today's date at "HH:MM" in this phone's time zone, as epoch ms; tomorrow if it is already past by
 * more than 12 hours (a start typed late at night is for the morning).
 */
export function startFromTime(value, now = Date.now()) {
  const [hours, minutes] = value.split(":").map(Number);
  if (!Number.isInteger(hours) || !Number.isInteger(minutes)) return now;
  const start = new Date(now);
  start.setHours(hours, minutes, 0, 0);
  if (start.getTime() < now - 12 * 3600_000) start.setDate(start.getDate() + 1);
  return start.getTime();
}

/**
 * The kick-off time the form offers: the next quarter hour on this phone's clock (10:07 → 10:15,
 * 10:15 → 10:30), as "HH:MM", since a day starts on the quarter, not 10 minutes after the form opened.
 */
export function nextQuarterHour(now = Date.now()) {
  const next = new Date(now);
  next.setSeconds(0, 0);
  next.setMinutes((Math.floor(next.getMinutes() / 15) + 1) * 15);
  return `${String(next.getHours()).padStart(2, "0")}:${String(next.getMinutes()).padStart(2, "0")}`;
}

export class TournamentCreate {
  constructor(live, perform) {
    Object.assign(this, { live, perform });
    this.root = h("section", { class: "card", "aria-labelledby": "tcreate-title", id: "tournament-create" });
    this.previewed = null; // the form's fields the preview was drawn from
    this.build();
  }

  field(label, input) { return h("label", {}, label, " ", input); }

  build() {
    const time = nextQuarterHour();
    this.form = h("form", { class: "stack", id: "tournament-form", oninput: () => this.staleIfChanged() },
      this.field(WORDS.name, h("input", { name: "name", required: true, maxlength: "60", value: WORDS.defaultName })),
      this.field(WORDS.teams, h("textarea", { name: "teams", rows: "8", required: true, autocapitalize: "words" })),
      h("div", { class: "row" },
        this.field(WORDS.groups, h("select", { name: "groups" }, GROUP_COUNTS.map((count) => h("option", { value: count, selected: count === 2 }, count)))),
        this.field(WORDS.advance, h("input", { name: "advance", type: "number", min: "1", max: "31", value: "2", inputmode: "numeric" }))),
      h("div", { class: "row" },
        this.field(WORDS.matchMinutes, h("input", { name: "matchMinutes", type: "number", min: "1", max: "90", value: "12", inputmode: "numeric" })),
        this.field(WORDS.breakMinutes, h("input", { name: "breakMinutes", type: "number", min: "0", max: "60", value: "3", inputmode: "numeric" }))),
      h("div", { class: "row" },
        this.field(WORDS.startsAt, h("input", { name: "startsAt", type: "time", value: time })),
        h("label", { class: "check" }, h("input", { name: "thirdPlace", type: "checkbox" }), " ", WORDS.thirdPlace)),
      h("fieldset", { class: "pitch-choice" }, h("legend", {}, WORDS.pitches), this.pitchBoxes = h("div", { class: "row" })),
      h("button", { type: "submit", id: "tournament-preview" }, WORDS.preview));
    this.form.addEventListener("submit", (event) => { event.preventDefault(); this.showPreview(); });
    this.preview = h("div", { id: "tournament-preview-area", "aria-live": "polite" });
    replace(this.root, h("h2", { id: "tcreate-title" }, WORDS.title), this.form, this.preview);
  }

  /**
   * The pitch boxes follow the venue's pitches, every one ticked, a pitch added while the form is
   * open too (a venue adds its pitches before its first tournament): only a box the organiser
   * unticked stays unticked.
   */
  render(state) {
    const ids = state.pitches.map((pitch) => `${pitch.id}:${pitch.name}`).join("|");
    if (ids === this.pitchKey) return;
    const unticked = new Set([...this.pitchBoxes.querySelectorAll("input:not(:checked)")].map((box) => Number(box.value)));
    this.pitchKey = ids;
    replace(this.pitchBoxes, state.pitches.map((pitch) => h("label", { class: "check" },
      h("input", { type: "checkbox", name: "pitch", value: pitch.id, checked: !unticked.has(pitch.id) }), " ", pitch.name)));
  }

  /** The form as the action's fields (numbers as numbers; blank lines dropped). */
  fields() {
    const form = this.form.elements;
    const number = (input) => (input.value.trim() === "" ? NaN : Number(input.value));
    return {
      name: form.name.value.trim(),
      teams: form.teams.value.split("\n").map((line) => line.trim()).filter(Boolean),
      groups: Number(form.groups.value),
      advance: number(form.advance),
      matchMinutes: number(form.matchMinutes),
      breakMinutes: number(form.breakMinutes),
      startsAt: startFromTime(form.startsAt.value),
      pitches: [...this.pitchBoxes.querySelectorAll("input:checked")].map((box) => Number(box.value)),
      thirdPlace: form.thirdPlace.checked,
    };
  }

  staleIfChanged() {
    if (!this.previewed) return;
    const { startsAt, ...now } = this.fields();
    const { startsAt: before, ...then } = this.previewed;
    if (JSON.stringify(now) === JSON.stringify(then)) return;
    this.previewed = null;
    replace(this.preview, h("p", { class: "hint" }, WORDS.changed));
  }

  showPreview() {
    const state = this.live.state;
    const fields = this.fields();
    const problems = planProblems(fields, state.pitches.map((pitch) => pitch.id));
    if (problems.length) {
      this.previewed = null;
      replace(this.preview, h("div", { class: "problems", role: "alert" }, h("p", {}, WORDS.problemsTitle),
        h("ul", {}, problems.map((problem) => h("li", {}, problem)))));
      return;
    }
    this.previewed = fields;
    const plan = planMatches(fields.teams.length, fields.groups, { ...fields, pitches: fields.pitches });
    const name = (id) => fields.teams[id - 1];
    const pitchName = (id) => (state.pitches.find((pitch) => pitch.id === id) || { name: TEXT.pitchNumber(id) }).name;
    // "Group A winner", "Winner of match 25": the words the day's pages use, not the labels A1, W25.
    const side = (match, key) => (match[key] ? name(match[key]) : placeText(match[`${key}From`]));
    const last = plan.matches[plan.matches.length - 1];
    replace(this.preview, h("section", { class: "tpreview", "aria-labelledby": "tpreview-title" },
      h("h3", { id: "tpreview-title" }, WORDS.previewTitle(fields.name)),
      h("p", { id: "tpreview-summary" }, `${WORDS.teamsCount(fields.teams.length)} · ` + WORDS.summary(plan.matches.length, plan.slots, timeText(last.plannedAt))),
      h("h4", {}, WORDS.groupsTitle),
      h("ul", { class: "tpreview-groups" }, plan.groups.map((ids, index) => h("li", { dataset: { group: groupName(index) } },
        h("strong", {}, t("tour.label", { label: TEXT.group(groupName(index)) })), ids.map(name).join(", ")))),
      h("h4", {}, WORDS.scheduleTitle),
      h("ol", { class: "tpreview-schedule" }, plan.matches.map((match) => h("li", { dataset: { match: match.id, pitch: match.pitch, slot: match.slot } },
        h("span", { class: "when" }, `${timeText(match.plannedAt)} · ${pitchName(match.pitch)}`), " ",
        h("span", {}, `${stageText(match)}: ${side(match, "home")} ${TEXT.versus} ${side(match, "away")}`)))),
      h("button", { type: "button", id: "tournament-create-confirm", class: "primary", onclick: () => this.create() }, WORDS.create)));
  }

  async create() {
    const fields = this.previewed;
    if (!fields) return;
    const reply = await this.perform({ kind: "createTournament", ...fields });
    if (reply.type === "ack") {
      this.previewed = null;
      replace(this.preview);
    }
  }
}
