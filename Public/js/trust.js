// trust.html: the fingerprint this server says its CA has, in full and as a short check, and the
// file name to look for, from /api/trust.json. Without it (the operator's own certificate, or
// no network) the steps still read, and the laptop's screen still shows the fingerprint.

import { $ } from "./dom.js";
import { localisePage, t } from "./i18n.js";

localisePage();

async function showFingerprint() {
  let trust = null;
  try {
    const response = await fetch("/api/trust.json", { cache: "no-store" });
    if (response.ok) trust = await response.json();
  } catch { /* offline: the laptop's screen has it */ }
  if (!trust || typeof trust.fingerprint !== "string") {
    $("#short-check").textContent = t("trust.not_available");
    $("#full-fingerprint").textContent = t("trust.not_available");
    return;
  }
  $("#short-check").textContent = trust.shortCheck;
  $("#full-fingerprint").textContent = trust.fingerprint;
  if (trust.file) $("#file-name").textContent = trust.file;
}

showFingerprint();

// An invite QR code carries the code after '#' (never sent to the server): hand it on to the
// organiser page, which fills it into "New organiser". A referee link's code goes on the same way,
// to the page's one-pitch scoring view.
function handOnInvite() {
  const fields = new URLSearchParams(location.hash.slice(1));
  const invite = fields.get("invite");
  const referee = fields.get("referee");
  const refereeing = !!referee && /^[A-Za-z0-9_-]{16,64}$/.test(referee);
  $("#organiser-link").href = refereeing ? `/organiser.html#referee=${referee}`
    : invite && /^[A-Za-z0-9_-]{8,64}$/.test(invite) ? `/organiser.html#invite=${encodeURIComponent(invite)}` : "/organiser.html";
  $("#organiser-link").textContent = t(refereeing ? "ref.open_scoring" : "trust.open_organiser");
}
handOnInvite();
addEventListener("hashchange", handOnInvite);
