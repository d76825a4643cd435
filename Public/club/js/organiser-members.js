// The organisers' Members tab: add a member (name, optional email and language), and for each:
// edit, remove, the personal link (copy, QR code), a new link (the old one stops at once), the
// no-shows when the club counts them. A personal link is shown only when the organiser asks for
// it, and an edit in progress is not redrawn away by a live change.

import { $, h, replace } from "/js/dom.js";
import { LANGUAGES } from "/js/i18n.js";
import { t, lang, number } from "./words.js";

const NAME_MAX = 40;
const EMAIL_MAX = 254;

/** The six languages; "the club's language" only while none is chosen (a chosen one can be
 *  changed, not taken back: the API has no way to say "none" again). */
function languageSelect(id, chosen = "") {
  return h("select", { id, name: "language" },
    chosen ? null : h("option", { value: "" }, t("org.club_language")),
    ...LANGUAGES.map((code) => h("option", { value: code, lang: code, selected: code === chosen },
      new Intl.DisplayNames([code], { type: "language" }).of(code))));
}

function fields(prefix, member = {}) {
  return [
    h("label", { for: `${prefix}-name` }, h("span", {}, t("org.name")),
      h("input", { id: `${prefix}-name`, name: "name", required: true, maxlength: String(NAME_MAX), value: member.name || "", autocomplete: "off" })),
    h("label", { for: `${prefix}-email` }, h("span", {}, t("org.email_optional")),
      h("input", { id: `${prefix}-email`, name: "email", type: "email", maxlength: String(EMAIL_MAX), value: member.email || "", autocomplete: "off" })),
    h("label", { for: `${prefix}-language` }, h("span", {}, t("org.language")), languageSelect(`${prefix}-language`, member.language || "")),
  ];
}

/** The link as text, a Copy button and its QR code (drawn by the server's /qr.svg). */
export function linkBox(page, name, link) {
  const copy = async () => {
    try { await navigator.clipboard.writeText(link); page.notice(t("org.copied"), "info"); } catch { page.notice(t("org.copy_by_hand"), "info"); }
  };
  return h("div", { class: "link-box", role: "group", "aria-label": t("org.link_of", { name }) },
    h("p", { class: "hint" }, t("org.link_of", { name })),
    h("code", { class: "member-link" }, link),
    h("button", { type: "button", class: "copy-link", onclick: copy }, t("org.copy_link")),
    h("img", { class: "qr", src: `/qr.svg?text=${encodeURIComponent(link)}`, alt: t("org.qr_of", { name }), width: "220", height: "220" }));
}

export function membersView(page) {
  let members = [];
  let editing = null; // the id whose edit form is open
  let shown = null; // {id, link}: the link box under a member

  function row(member) {
    const id = String(member.id);
    const badges = [
      member.active === false ? h("span", { class: "badge" }, t("org.paused")) : null,
      typeof member.noShows === "number" && member.noShows > 0 ? h("span", { class: "badge warn" }, t("org.no_shows", { count: member.noShows })) : null,
    ];
    if (editing === id) return h("li", { class: "member-row", dataset: { member: id } }, editForm(member));
    // The link as the API gives it (rebuilt by the server from its secret). Without it the
    // only way to a link is "New link", which ends the old one, so it asks first.
    const showLink = () => { shown = shown && shown.id === id ? null : { id, link: member.link }; draw(); };
    return h("li", { class: "member-row", dataset: { member: id } },
      h("div", { class: "who" }, h("strong", {}, member.name), ...badges),
      member.email ? h("span", { class: "hint" }, member.email) : null,
      h("div", { class: "actions" },
        member.link ? h("button", { type: "button", class: "secondary show-link", "aria-expanded": String(Boolean(shown && shown.id === id)),
          onclick: showLink }, t("org.link")) : null,
        h("button", { type: "button", class: "secondary new-link", onclick: () => newLink(member) }, t("org.new_link")),
        h("button", { type: "button", class: "secondary edit", onclick: () => { editing = id; draw(); } }, t("org.edit")),
        h("button", { type: "button", class: "quiet danger remove", onclick: () => remove(member) }, t("org.remove"))),
      shown && shown.id === id ? linkBox(page, member.name, shown.link) : null);
  }

  function editForm(member) {
    const active = h("input", { type: "checkbox", name: "active", checked: member.active !== false });
    const save = async (event) => {
      event.preventDefault();
      const form = event.target;
      const body = {};
      const name = form.elements.name.value.trim();
      const email = form.elements.email.value.trim();
      const language = form.elements.language.value;
      if (name !== member.name) body.name = name;
      if (email !== (member.email || "")) body.email = email; // "" clears the address (ClubModel's MemberDraft)
      if (language && language !== member.language) body.language = language;
      if (active.checked !== (member.active !== false)) body.active = active.checked;
      try {
        if (Object.keys(body).length) await page.call("PATCH", `/club/api/members/${member.id}`, body);
        editing = null;
        draw();
        page.refresh();
      } catch { /* said in the notice */ }
    };
    return h("form", { class: "stack edit-member", onsubmit: save },
      h("h3", {}, t("org.edit_member", { name: member.name })),
      ...fields(`edit-${member.id}`, member),
      h("label", { class: "check" }, active, h("span", {}, t("org.active"))),
      h("div", { class: "row" },
        h("button", { type: "submit" }, t("org.save")),
        h("button", { type: "button", class: "secondary", onclick: () => { editing = null; draw(); } }, t("org.cancel"))));
  }

  async function newLink(member) {
    if (!(await page.confirmFirst(t("org.new_link_question", { name: member.name }), t("org.new_link")))) return;
    try {
      const answer = await page.call("POST", `/club/api/members/${member.id}/link`, {});
      shown = { id: String(member.id), link: answer.link };
      draw();
    } catch { /* said */ }
  }

  async function remove(member) {
    if (!(await page.confirmFirst(t("org.remove_question", { name: member.name }), t("org.remove")))) return;
    try {
      await page.call("DELETE", `/club/api/members/${member.id}`, {});
      page.refresh();
    } catch { /* said */ }
  }

  function draw() {
    const sorted = [...members].sort((a, b) => a.name.localeCompare(b.name, lang));
    replace($("#member-list"), sorted.length ? sorted.map(row) : h("li", { class: "empty" }, t("org.no_members")));
    $("#members-title").textContent = `${t("org.members")} (${number(members.length)})`;
  }

  const form = $("#member-form");
  replace(form, ...fields("add"), h("button", { type: "submit", id: "add-member" }, t("org.add_member_button")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { name: form.elements.name.value.trim() };
    const email = form.elements.email.value.trim();
    if (email) body.email = email;
    if (form.elements.language.value) body.language = form.elements.language.value;
    try {
      const answer = await page.call("POST", "/club/api/members", body);
      form.reset();
      replace($("#new-link"), linkBox(page, answer.member.name, answer.link));
      page.refresh();
    } catch { /* said */ }
  });

  return {
    render(club) {
      members = club.members || [];
      if (editing === null) draw(); // an open edit form keeps what is being typed
    },
  };
}
