// Share at full time: a result card drawn in the page (a canvas: teams in their kit colours,
// score, scorers, date, venue), sent with the Web Share API with a text summary; where a phone
// cannot share files, the image is downloaded and the text copied instead.

import { t, lang } from "./i18n.js";
import { kitOf } from "./kit.js";
import { goalLines, scoreText, summaryText, winnerText } from "./full-time.js";

export const CARD_WIDTH = 1200;
export const CARD_HEIGHT = 675;

/**
 * Draws the card; returns the canvas (CARD_WIDTH × CARD_HEIGHT).
 * `venue`: the venue's name when the server has one; never the laptop's address, which means
 * nothing in a group chat.
 */
export function drawResultCard(result, { pitchName = "", names = new Map(), venue = "" } = {}) {
  const canvas = document.createElement("canvas");
  canvas.width = CARD_WIDTH;
  canvas.height = CARD_HEIGHT;
  const g = canvas.getContext("2d");
  g.fillStyle = "#0f1f17";
  g.fillRect(0, 0, CARD_WIDTH, CARD_HEIGHT);
  // A stripe of each kit down the sides.
  for (const [side, x] of [["A", 0], ["B", CARD_WIDTH - 24]]) {
    g.fillStyle = kitOf(result.teams[side], side).solid;
    g.fillRect(x, 0, 24, CARD_HEIGHT);
  }
  const font = (size, weight = 700) => `${weight} ${size}px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif`;
  g.textAlign = "center";
  g.textBaseline = "alphabetic";
  g.fillStyle = "#ffe28a";
  g.font = font(44);
  g.fillText(`${t("page.full_time")}${pitchName ? ` · ${pitchName}` : ""}`, CARD_WIDTH / 2, 80, CARD_WIDTH - 120);
  for (const [side, x] of [["A", CARD_WIDTH * 0.25], ["B", CARD_WIDTH * 0.75]]) {
    const team = result.teams[side];
    g.fillStyle = kitOf(team, side).onDark;
    g.font = font(46);
    g.fillText(team.name, x, 175, CARD_WIDTH * 0.42);
    g.fillStyle = "#ffffff";
    g.font = font(180, 800);
    g.fillText(String(team.score), x, 360);
  }
  g.fillStyle = "#c9d6cf";
  g.font = font(120, 800);
  g.fillText("–", CARD_WIDTH / 2, 345);
  g.fillStyle = "#ffffff";
  g.font = font(40);
  g.fillText(winnerText(result), CARD_WIDTH / 2, 430, CARD_WIDTH - 120);
  const goals = goalLines(result, names);
  g.font = font(30, 500);
  g.fillStyle = "#d8e0db";
  const lines = wrap(g, goals.length ? t("page.goals_list", { goals: goals.join(", ") }) : t("page.no_goals").replace(/\.$/, ""), CARD_WIDTH - 140).slice(0, 3);
  lines.forEach((line, index) => g.fillText(line, CARD_WIDTH / 2, 490 + index * 40));
  g.font = font(26, 500);
  g.fillStyle = "#9fb0a7";
  const date = new Date(result.endedAt).toLocaleString(lang, { dateStyle: "medium", timeStyle: "short" });
  g.fillText([date, venue, "Football Gather Live"].filter(Boolean).join(" · "), CARD_WIDTH / 2, CARD_HEIGHT - 40, CARD_WIDTH - 120);
  return canvas;
}

/** The venue's name for the card's footer (`/api/join.json` `venue`), or "" when the server has none. */
export async function venueName() {
  try {
    const response = await fetch("/api/join.json", { cache: "no-store" });
    const join = response.ok ? await response.json() : null;
    return join && typeof join.venue === "string" ? join.venue : "";
  } catch {
    return "";
  }
}

function wrap(g, text, width) {
  const lines = [];
  let line = "";
  for (const word of text.split(" ")) {
    const next = line ? `${line} ${word}` : word;
    if (line && g.measureText(next).width > width) { lines.push(line); line = word; } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

function pngOf(canvas) {
  return new Promise((resolve, reject) => canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("no image"))), "image/png"));
}

/** Shares the card and the summary; says how: "shared", "downloaded" or "cancelled". */
export async function shareResult(result, { pitchName = "", names = new Map(), venue = "" } = {}) {
  const text = summaryText(result, pitchName, names, venue);
  const blob = await pngOf(drawResultCard(result, { pitchName, names, venue }));
  const fileName = `full-time-${new Date(result.endedAt).toISOString().slice(0, 10)}.png`;
  const file = new File([blob], fileName, { type: "image/png" });
  const data = { files: [file], title: scoreText(result), text };
  if (navigator.share && navigator.canShare && navigator.canShare(data)) {
    try {
      await navigator.share(data);
      return { how: "shared", text, blob };
    } catch (error) {
      if (error && error.name === "AbortError") return { how: "cancelled", text, blob };
      // Any other failure (no permission, no target): fall back to download and copy.
    }
  }
  const url = URL.createObjectURL(blob);
  const link = Object.assign(document.createElement("a"), { href: url, download: fileName });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  await copyText(text);
  return { how: "downloaded", text, blob };
}

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Plain HTTP or no permission: the old way, through a selected text area.
    const area = Object.assign(document.createElement("textarea"), { value: text, readOnly: true });
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.append(area);
    area.select();
    const copied = document.execCommand && document.execCommand("copy");
    area.remove();
    return !!copied;
  }
}
