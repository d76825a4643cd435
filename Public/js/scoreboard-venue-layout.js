// The venue overview's layout, measured rather than guessed: for the number of cards on screen
// it tries each column count and both card shapes, finds (by bisection) the largest type that
// fits every card whole, and keeps the arrangement with the largest type. Our own code because
// CSS alone cannot pick a column count from what the text needs.

/** Scores and names never go below this share of the screen's height (readable from 10 m). */
export const MINIMUM_SHARE = 0.03;
const MAXIMUM_SHARE = 0.13;
const STEPS = 9;

/**
 * Lays out `venue` (its children are the cards) and returns what it chose, for tests and logs:
 * { columns, shape, size, dense }. The same inputs (cards' text, screen size) keep the last choice.
 */
export function layOutVenue(venue) {
  const cards = [...venue.children];
  // What the cards say, less their clocks (a countdown never changes what fits).
  const words = [...venue.querySelectorAll(".venue-name, .venue-team, .venue-goals, .venue-goal, .venue-paused, .venue-full-time")]
    .map((element) => element.textContent).join("|");
  const screen = `${innerWidth}x${innerHeight}|${cards.length}`;
  const key = `${screen}|${words}`;
  const last = venue.layoutChoice;
  if (venue.layoutKey === key && last) { apply(venue, last); return last; }
  const floor = Math.ceil(innerHeight * MINIMUM_SHARE * 10) / 10;
  const ceiling = Math.min(innerHeight * MAXIMUM_SHARE, innerWidth * 0.09);
  const portrait = innerHeight > innerWidth;
  let best = null;
  // Many cards on the same screen, new words (a goal, a name): the arrangement stays and only the
  // type is fitted again (a full search of 16 cards on every goal would stall a projector's laptop).
  if (last && cards.length > 4 && venue.layoutScreen === screen && !last.dense) best = bestSize(venue, last, floor, ceiling);
  for (const dense of [false, true]) {
    if (best) break; // the last goals go only when nothing fits with them
    for (let columns = 1; columns <= Math.min(cards.length || 1, portrait ? 2 : 5); columns += 1) {
      for (const shape of ["stack", "list"]) {
        const found = bestSize(venue, { columns, shape, dense }, floor, ceiling);
        // The stacked card's score is twice the list's: it wins unless the list's type is much larger.
        if (found && (!best || found.worth > best.worth + 0.5)) best = found;
      }
    }
  }
  // Nothing fits even at the floor (a phone held sideways): the densest, smallest arrangement.
  best = best || { columns: Math.min(cards.length || 1, 2), shape: "list", dense: true, size: floor };
  best.size = Math.max(floor, Math.floor(best.size * 10) / 10);
  apply(venue, best);
  venue.layoutKey = key;
  venue.layoutScreen = screen;
  venue.layoutChoice = best;
  return best;
}

/**
 * The largest type (by bisection) with which `choice`'s arrangement shows every card whole, or
 * null when it does not even at the floor.
 */
function bestSize(venue, choice, floor, ceiling) {
  apply(venue, { ...choice, size: floor });
  if (!fits(venue)) return null;
  let low = floor, high = ceiling;
  for (let step = 0; step < STEPS; step += 1) {
    const middle = (low + high) / 2;
    apply(venue, { ...choice, size: middle });
    if (fits(venue)) low = middle; else high = middle;
  }
  return { columns: choice.columns, shape: choice.shape, dense: choice.dense, size: low, worth: low * (choice.shape === "stack" ? 1.3 : 1) };
}

function apply(venue, { columns, shape, dense, size }) {
  const rows = Math.max(1, Math.ceil(venue.children.length / columns));
  venue.style.setProperty("--cols", columns);
  venue.style.setProperty("--rows", rows);
  venue.style.setProperty("--f", `${size}px`);
  venue.dataset.shape = shape;
  venue.dataset.dense = String(dense);
}

/**
 * Every card's text box inside its card, no word wider than its box, every card inside the
 * overview's area (boxes measured, so content pushed out at the top counts too).
 */
function fits(venue) {
  const area = venue.getBoundingClientRect();
  for (const card of venue.children) {
    const box = card.getBoundingClientRect();
    if (!inside(box, area)) return false;
    if (card.scrollHeight > card.clientHeight + 1 || card.scrollWidth > card.clientWidth + 1) return false;
    for (const text of card.children) {
      if (text.classList.contains("visually-hidden") || !text.getClientRects().length) continue; // not shown
      if (!inside(text.getBoundingClientRect(), box)) return false;
      if (text.clientWidth && text.scrollWidth > text.clientWidth + 1) return false;
      if (text.clientHeight && text.scrollHeight > text.clientHeight + 1) return false;
    }
  }
  return true;
}

function inside(inner, outer) {
  return inner.top >= outer.top - 1 && inner.left >= outer.left - 1 && inner.bottom <= outer.bottom + 1 && inner.right <= outer.right + 1;
}
