import { $, h, replaceFor } from "./dom.js";
import { capitalise, recordText } from "./format.js";
import { t, weekdayText } from "./i18n.js";
import { gatherOn, pitchById, pitchOfPlayers } from "./state.js";

/**
 * The roster with each player's rating and record: list, add, edit every field, delete with a
 * confirmation, and the selection mode that creates a gather on the console's pitch from at
 * least two players (a player already playing on another pitch cannot be picked).
 */
export class PlayersView {
  constructor(live, perform, showGather, pitch) {
    Object.assign(this, { live, perform, showGather, pitch });
    this.selecting = false;
    this.selected = new Set();
    this.editing = null;   // player id being edited
    $("#player-form").addEventListener("submit", (event) => { event.preventDefault(); this.save(event.target); });
    $("#player-cancel").addEventListener("click", () => this.stopEditing());
    $("#select-toggle").addEventListener("click", () => this.toggleSelecting());
    $("#continue").addEventListener("click", () => this.createGather());
  }

  render(state) {
    const playing = pitchOfPlayers(state); // player id -> the pitch they are on tonight
    const busy = !!gatherOn(state, this.pitch());
    for (const id of [...this.selected]) {
      if (!state.players.some((player) => player.id === id) || playing.has(id)) this.selected.delete(id);
    }
    const where = [...playing].map(([id, pitch]) => `${id}@${pitch.name}`).join(); // a string: compared by value
    replaceFor($("#player-list"), [state.players, where, this.selecting], () => state.players.length
      ? (this.selecting ? this.pickingRows(state.players, playing) : state.players.map((player) => this.row(player, playing.get(player.id))))
      : [h("li", { class: "empty" }, t("org.no_players_add_first"))]);
    const pitch = pitchById(state, this.pitch());
    $("#continue").textContent = state.pitches.length > 1 && pitch ? t("org.continue_on", { pitch: pitch.name }) : t("org.continue");
    // A club list can make the gather alone, even on a roster with nobody yet.
    const fromClub = this.live.clubDates.some((list) => list.confirmed.length > 0);
    $("#select-toggle").disabled = busy || (state.players.length - playing.size < 2 && !fromClub);
    if (busy && this.selecting) this.toggleSelecting();
    this.renderSelection();
    this.renderClubLists();
  }

  /** While selecting: one button per club list the venue holds ("From Sunday's list (12 in, 2 guests)"). */
  renderClubLists() {
    const lists = this.selecting ? this.live.clubDates.filter((list) => list.confirmed.length > 0) : [];
    $("#club-lists").hidden = lists.length === 0;
    replaceFor($("#club-lists"), [lists.map((list) => `${list.date}:${list.seq}`).join(), this.pitch()], () => lists.map((list) =>
      h("button", { type: "button", class: "secondary club-list", "data-key": list.date,
        onclick: () => this.selectFromClubDate(list.date) },
      t("org.from_club_list", { day: weekdayText(list.startsAt), count: list.confirmed.length,
        guests: list.confirmed.reduce((sum, entry) => sum + entry.guests, 0) }))));
  }

  async selectFromClubDate(date) {
    const reply = await this.perform({ kind: "selectFromClubDate", date, pitch: this.pitch() });
    if (reply.type === "ack") {
      this.toggleSelecting();
      this.showGather();
    }
  }

  /** `pitch`: where the player is in a gather now, if anywhere. */
  row(player, pitch) {
    const details = [player.position && t(`org.${player.position}`, {}, capitalise(player.position)),
      player.skill && t(`org.${player.skill}`, {}, capitalise(player.skill)),
      player.age && t("org.age_years", { age: player.age }), player.favouriteTeam].filter(Boolean).join(" · ");
    const record = `${t("org.rating_label", { rating: String(player.rating) })} · ${recordText(player.stats)}${pitch ? ` · ${t("org.on_pitch", { pitch: pitch.name.replace(/ /g, "\u00a0") })}` : ""}`;
    const who = h("div", { class: "who" }, h("strong", {}, player.name), h("small", {}, details || t("org.no_details")),
      h("small", { class: "record" }, record));
    const children = [who];
    if (this.selecting) {
      // The whole row is the label: a tap anywhere on the player ticks the box.
      const box = h("input", { type: "checkbox", "aria-label": t("org.select_name", { name: player.name }), checked: this.selected.has(player.id),
        disabled: !!pitch,
        onchange: (event) => { if (event.target.checked) this.selected.add(player.id); else this.selected.delete(player.id); this.renderSelection(); } });
      children.splice(0, 1, h("label", { class: "pick" }, box, who));
    } else {
      children.push(h("div", { class: "row" },
        h("button", { type: "button", class: "secondary", onclick: () => this.startEditing(player) }, t("org.edit")),
        h("button", { type: "button", class: "danger", disabled: !!pitch, title: pitch ? t("org.in_the_gather_on", { pitch: pitch.name }) : null,
          onclick: () => this.remove(player) }, t("org.delete"))));
    }
    return h("li", { class: "player", dataset: { id: player.id } }, children);
  }

  /**
   * Picking a line-up while other pitches play: the free players first, those busy elsewhere
   * folded under "Playing on North (grass)", one fold per pitch.
   */
  pickingRows(players, playing) {
    const free = players.filter((player) => !playing.has(player.id));
    const folds = new Map(); // pitch id -> { pitch, players }
    for (const player of players) {
      const pitch = playing.get(player.id);
      if (!pitch) continue;
      if (!folds.has(pitch.id)) folds.set(pitch.id, { pitch, players: [] });
      folds.get(pitch.id).players.push(player);
    }
    return [...free.map((player) => this.row(player, null)),
      ...[...folds.values()].sort((x, y) => x.pitch.id - y.pitch.id).map(({ pitch, players: busy }) =>
        h("li", { class: "busy-fold", dataset: { pitch: pitch.id } },
          h("details", {}, h("summary", {}, t("org.playing_on", { pitch: pitch.name, count: busy.length })),
            h("ul", { class: "players" }, busy.map((player) => this.row(player, pitch))))))];
  }

  // MARK: - Add and edit

  fields(form) {
    const data = Object.fromEntries(new FormData(form).entries());
    const fields = { name: data.name.trim() };
    fields.age = data.age === "" ? null : Number(data.age);
    fields.skill = data.skill || null;
    fields.position = data.position || null;
    fields.favouriteTeam = data.favouriteTeam.trim() || null;
    return fields;
  }

  async save(form) {
    const fields = this.fields(form);
    let action;
    if (this.editing === null) {
      action = { kind: "addPlayer", name: fields.name };
      for (const key of ["age", "skill", "position", "favouriteTeam"]) if (fields[key] !== null) action[key] = fields[key];
    } else {
      action = { kind: "editPlayer", playerId: this.editing, ...fields };
    }
    const adding = this.editing === null;
    const reply = await this.perform(action);
    if (reply.type === "ack") this.stopEditing();
    // The next player's name goes straight in: the cursor stays in the name field.
    if (adding) form.name.focus();
  }

  startEditing(player) {
    this.editing = player.id;
    const form = $("#player-form");
    form.name.value = player.name;
    form.age.value = player.age ?? "";
    form.skill.value = player.skill ?? "";
    form.position.value = player.position ?? "";
    form.favouriteTeam.value = player.favouriteTeam ?? "";
    $("#player-form-title").textContent = t("org.edit_name", { name: player.name });
    $("#player-save").textContent = t("org.save");
    $("#player-cancel").hidden = false;
    form.name.focus();
  }

  stopEditing() {
    this.editing = null;
    $("#player-form").reset();
    $("#player-form-title").textContent = t("org.add_a_player");
    $("#player-save").textContent = t("org.add_player");
    $("#player-cancel").hidden = true;
  }

  async remove(player) {
    if (!confirm(t("org.confirm_delete_player", { name: player.name }))) return;
    await this.perform({ kind: "removePlayer", playerId: player.id });
  }

  // MARK: - Selection mode

  toggleSelecting() {
    this.selecting = !this.selecting;
    this.selected.clear();
    $("#select-toggle").textContent = this.selecting ? t("org.done") : t("org.select_players");
    if (this.live.state) this.render(this.live.state);
    else this.renderClubLists();
  }

  renderSelection() {
    $("#selection-bar").hidden = !this.selecting;
    $("#selected-count").textContent = t("org.selected_count", { count: this.selected.size });
    $("#continue").disabled = this.selected.size < 2;
  }

  async createGather() {
    const reply = await this.perform({ kind: "createGather", pitch: this.pitch(), playerIds: [...this.selected].sort((a, b) => a - b) });
    if (reply.type === "ack") {
      this.toggleSelecting();
      this.showGather();
    }
  }
}
