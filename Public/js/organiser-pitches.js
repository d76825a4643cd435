// The organiser's pitch: which one the console works on (remembered on this phone), and a small
// area to add, rename and remove pitches.

import { $, h, replace } from "./dom.js";
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
      const input = h("input", { name: "name", value: pitch.name, maxlength: "30", required: true, "aria-label": `Name of ${pitch.name}` });
      const rename = (event) => {
        event.preventDefault();
        const name = input.value.trim();
        if (name && name !== pitch.name) this.perform({ kind: "renamePitch", pitch: pitch.id, name });
      };
      return h("li", {}, h("form", { onsubmit: rename }, input,
        h("button", { type: "submit", class: "secondary", "aria-label": `Rename ${pitch.name}` }, "Rename"),
        pitch.id === 1 ? null : h("button", {
          type: "button", class: "danger", disabled: !!pitch.gather, "aria-label": `Remove ${pitch.name}`,
          title: pitch.gather ? "A gather is on this pitch" : null,
          onclick: () => { if (confirm(`Remove ${pitch.name}?`)) this.perform({ kind: "removePitch", pitch: pitch.id }); },
        }, "Remove")));
    }));
  }
}

function situation(gather) {
  if (!gather) return " — free";
  if (gather.phase === "setup") return " — line-up";
  const status = gather.timer.status;
  return ` — ${gather.score.A}–${gather.score.B}${status === "finished" ? ", full time" : status === "paused" ? ", paused" : ", live"}`;
}

function readStored() {
  try { return localStorage.getItem(PITCH_KEY); } catch { return null; }
}
