// The organiser's pitch: which one the console works on (remembered on this phone), and a small
// area to add, rename and remove pitches.

import { $, h, replace } from "./dom.js";
import { t } from "./i18n.js";
import { pitchById } from "./state.js";

const PITCH_KEY = "gather.organiserPitch";

export class PitchSwitcher {
  constructor(live, perform, onSwitch, onAdded = () => {}) {
    Object.assign(this, { live, perform, onSwitch, onAdded });
    this.current = Number(readStored()) || 1;
    $("#pitch-select").addEventListener("change", (event) => this.choose(Number(event.target.value)));
    $("#pitch-add").addEventListener("submit", async (event) => {
      event.preventDefault();
      const input = event.target.name;
      const name = input.value.trim();
      if (!name) return;
      const reply = await this.perform({ kind: "addPitch", name });
      if (reply.type !== "ack") return;
      // The console stays on the pitch it was on: a match there must not vanish from under a thumb.
      input.value = "";
      this.onAdded(name);
    });
  }

  choose(id) {
    this.current = id;
    try { localStorage.setItem(PITCH_KEY, String(id)); } catch { /* storage blocked: remembered for this visit */ }
    this.onSwitch(id);
  }

  render(state) {
    // A pitch removed by another organiser: back to pitch 1, which always exists.
    if (!pitchById(state, this.current)) this.current = 1;
    const select = $("#pitch-select");
    replace(select, state.pitches.map((pitch) => h("option", { value: pitch.id, selected: pitch.id === this.current },
      `${pitch.name}${situation(pitch.gather)}`)));
    select.value = String(this.current);
    this.renderManage(state);
  }

  renderManage(state) {
    const list = $("#pitch-list");
    // Never rebuild the row someone is typing in.
    if (list.contains(document.activeElement) && document.activeElement.tagName === "INPUT") return;
    replace(list, state.pitches.map((pitch) => {
      const input = h("input", { name: "name", value: pitch.name, maxlength: "30", required: true, "aria-label": t("org.name_of_pitch", { pitch: pitch.name }) });
      // The form is read from the event: the row is kept and updated in place across renders, so
      // the input this render built may not be the one on the page.
      const rename = (event) => {
        event.preventDefault();
        const name = event.currentTarget.elements.name.value.trim();
        if (name && name !== pitch.name) this.perform({ kind: "renamePitch", pitch: pitch.id, name });
      };
      return h("li", {}, h("form", { onsubmit: rename }, input,
        h("button", { type: "submit", class: "secondary", "aria-label": t("org.rename_pitch", { pitch: pitch.name }) }, t("org.rename")),
        pitch.id === 1 ? null : h("button", {
          type: "button", class: "danger", disabled: !!pitch.gather, "aria-label": t("org.remove_pitch", { pitch: pitch.name }),
          title: pitch.gather ? t("org.pitch_has_gather") : null,
          onclick: () => { if (confirm(t("org.confirm_remove_pitch", { pitch: pitch.name }))) this.perform({ kind: "removePitch", pitch: pitch.id }); },
        }, t("org.remove"))), this.moveForm(state, pitch));
    }));
  }

  /**
   * A pitch with unplayed tournament matches cannot be removed (the server names them); this
   * moves them all to another of the tournament's pitches first (`moveMatches`). Nothing without
   * a tournament, or when the pitch has nothing left to play.
   */
  moveForm(state, pitch) {
    const cup = state.tournament;
    if (!cup || cup.phase === "finished") return null;
    if (!cup.matches.some((match) => match.pitch === pitch.id && match.status === "scheduled")) return null;
    const targets = cup.rules.pitches.filter((id) => id !== pitch.id && pitchById(state, id));
    if (!targets.length) return null;
    const select = h("select", { name: "to", "aria-label": t("org.move_matches_to", { pitch: pitch.name }) },
      targets.map((id) => h("option", { value: id }, pitchById(state, id).name)));
    const move = (event) => {
      event.preventDefault();
      this.perform({ kind: "moveMatches", from: pitch.id, to: Number(select.value) });
    };
    return h("form", { class: "row move-matches", dataset: { pitch: pitch.id }, onsubmit: move },
      h("label", {}, t("org.move_matches_to", { pitch: pitch.name }), " ", select),
      h("button", { type: "submit", class: "secondary" }, t("org.move_matches")));
  }
}

function situation(gather) {
  if (!gather) return ` — ${t("org.pitch_free")}`;
  if (gather.phase === "setup") return ` — ${t("org.pitch_line_up")}`;
  const status = gather.timer.status;
  const now = status === "finished" ? "org.pitch_full_time" : status === "paused" ? "org.pitch_paused" : "org.pitch_live";
  return ` — ${gather.score.A}–${gather.score.B}, ${t(now)}`;
}

function readStored() {
  try { return localStorage.getItem(PITCH_KEY); } catch { return null; }
}
