"""What the screen tests share: a venue with up to 16 pitches carrying the longest names the
server allows (pitch and team names 30 characters, player names 50), and the box checks a
person would make by eye (every text inside its card and the screen, nothing over anything)."""
from __future__ import annotations

from gatherlib import Live
from pages_support import ORGANISER, perform, play, run, sign_in


async def organiser(server) -> Live:
    """The registered organiser signed in again: resumed with its saved token, or logged in (a
    register attempt each time would count as a failed attempt and lock the address out after five)."""
    return await sign_in(await Live.connect(server), server, register=False)

# The contract's longest names (docs/PROTOCOL.md §12): 30 characters for pitches and teams, 50 for players.
LONG_TEAMS = ("Real Madrigal Veterans Sundays", "Athletic Tuesday Night Legends")
assert all(len(name) == 30 for name in LONG_TEAMS)


def long_pitch_name(number: int) -> str:
    name = f"North Pitch {number:02d} Riverside Parks"
    assert len(name) == 30
    return name


def long_player_name(number: int) -> str:
    name = f"Alexandra Fitzgerald-Okonkwo Papadopoulos-Lind {number:03d}"[:50]
    assert len(name) == 50, name
    return name


async def _long_venue(server, pitches: int):
    live = await organiser(server)
    try:
        for index in range(2 * pitches):
            await perform(live, {"kind": "addPlayer", "name": long_player_name(index + 1)})
        await perform(live, {"kind": "renamePitch", "pitch": 1, "name": long_pitch_name(1)})
        for number in range(2, pitches + 1):
            await perform(live, {"kind": "addPitch", "name": long_pitch_name(number)})
        return [pitch["id"] for pitch in live.snapshot["pitches"]], [player["id"] for player in live.snapshot["players"]]
    finally:
        await live.close()


def long_venue(server, pitches: int = 16):
    """`pitches` pitches with 30-character names and two 50-character players for each; nothing
    played yet. Returns (pitch ids, player ids)."""
    return run(_long_venue(server, pitches))


def kick_off(server, pitch_ids, player_ids, first: int, last: int):
    """Live matches on pitches first..last (1-based positions in `pitch_ids`): the long team names,
    a goal with its 50-character scorer, a 25-minute clock running."""
    async def go():
        live = await organiser(server)
        try:
            for position in range(first, last + 1):
                a, b = player_ids[2 * position - 2], player_ids[2 * position - 1]
                await play(live, pitch_ids[position - 1], [a], [b], names=LONG_TEAMS, goals=[("A", a, None)], minutes=25)
        finally:
            await live.close()
    run(go())


BOXES_SCRIPT = """
const card_boxes = [];
const screen = { left: 0, top: 0, right: innerWidth, bottom: innerHeight };
const inside = (a, b) => a.left >= b.left - 1 && a.top >= b.top - 1 && a.right <= b.right + 1 && a.bottom <= b.bottom + 1;
const shown = (el) => { const s = getComputedStyle(el); const b = el.getBoundingClientRect();
  return s.display !== 'none' && s.visibility !== 'hidden' && b.width > 0 && b.height > 0 && !el.classList.contains('visually-hidden'); };
const problems = [];
const sizes = { names: [], teams: [], scores: [], clocks: [], goals: [] };
const cards = [...document.querySelectorAll('#venue .venue-pitch')];
for (const card of cards) {
  const box = card.getBoundingClientRect();
  const label = card.dataset.pitch;
  if (!inside(box, screen)) problems.push(`card ${label} leaves the screen`);
  for (const text of card.querySelectorAll('.venue-name, .venue-team, .venue-goals, .venue-clock, .venue-goal, .venue-paused')) {
    if (!shown(text)) continue;
    const r = text.getBoundingClientRect();
    const what = `card ${label} ${text.className} "${text.textContent.slice(0, 30)}"`;
    if (!inside(r, box)) problems.push(`${what} is outside its card`);
    if (!inside(r, screen)) problems.push(`${what} is off the screen`);
    if (text.scrollWidth > text.clientWidth + 1 || text.scrollHeight > text.clientHeight + 1) problems.push(`${what} is clipped`);
    // A word broken in the middle shows as a line box narrower than the word: compare words' widths.
    const size = parseFloat(getComputedStyle(text).fontSize);
    const key = text.classList.contains('venue-name') ? 'names' : text.classList.contains('venue-team') ? 'teams'
      : text.classList.contains('venue-goals') ? 'scores' : text.classList.contains('venue-clock') ? 'clocks' : 'goals';
    sizes[key].push(size);
  }
  for (const other of cards) {
    if (other === card) continue;
    const o = other.getBoundingClientRect();
    if (box.left < o.right - 1 && o.left < box.right - 1 && box.top < o.bottom - 1 && o.top < box.bottom - 1)
      problems.push(`card ${label} overlaps card ${other.dataset.pitch}`);
  }
  for (const chrome of document.querySelectorAll('.corner, .join, .status')) {
    if (!shown(chrome)) continue;
    const o = chrome.getBoundingClientRect();
    if (box.left < o.right && o.left < box.right && box.top < o.bottom && o.top < box.bottom)
      problems.push(`card ${label} overlaps ${chrome.className}`);
  }
}
return { problems, sizes, cards: cards.length, layout: document.querySelector('#venue').dataset.layout };
"""

WORDS_SCRIPT = """
// Words broken mid-word: a text node's words each on one line (a range per word has one rect).
const broken = [];
for (const el of document.querySelectorAll(arguments[0])) {
  if (el.closest('code')) continue; // a fingerprint is a code to compare, not words
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest('code')) continue;
    const text = node.textContent;
    const re = /[^\\s-]+-?/g;
    let m;
    while ((m = re.exec(text))) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0);
      const lines = new Set(rects.map((r) => Math.round(r.top)));
      if (lines.size > 1) broken.push(m[0]);
    }
  }
}
return broken;
"""


def venue_boxes(browser) -> dict:
    return browser.driver.execute_script(BOXES_SCRIPT)


def broken_words(browser, css: str) -> list[str]:
    """Words (split at spaces and hyphens) that the page broke across two lines inside `css`."""
    return browser.driver.execute_script(WORDS_SCRIPT, css)
