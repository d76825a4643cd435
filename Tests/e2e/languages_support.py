"""A phone (or projector) whose browser speaks a language, and the checks that a page speaks it
too: no sentence of the English catalogue left visible (`english_left`), and no English word the
language's own catalogue never uses (`english_words`: catches words written in a script and never
put in a catalogue, which `english_left` cannot see)."""
from __future__ import annotations

import json
import re
from pathlib import Path

from pages_support import ORGANISER, Browser

ROOT = Path(__file__).resolve().parents[2]
WIDTH, HEIGHT = 360, 640
# Names and numbers the state itself carries (the server's default names are data, not page text).
NAMES = {"Ann", "Bob", "Team A", "Team B", "Pitch 1", ORGANISER, "Football Gather Live"}

VISIBLE_TEXTS = """
const out = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const node = walker.currentNode, el = node.parentElement, text = node.textContent.trim();
  if (!text || !el || el.closest('[hidden], .visually-hidden, script, style, option')) continue;
  const style = getComputedStyle(el), box = el.getBoundingClientRect();
  if (style.display === 'none' || style.visibility === 'hidden' || (box.width === 0 && box.height === 0)) continue;
  out.push(text);
}
// A menu shows its chosen option (the language picker names each language in itself).
for (const select of document.querySelectorAll('select:not(#language-switch)')) {
  const box = select.getBoundingClientRect(), option = select.selectedOptions[0];
  if (option && box.width > 0 && !select.closest('[hidden]') && option.textContent.trim()) out.push(option.textContent.trim());
}
return out;
"""

# Every tap target on screen smaller than 44×44, measured as test_tap_targets.py does: a box inside
# a label is hit through the label, a stretched link through its card, the closed inside of a
# <details> is not on screen; the players' table's sort headings are as wide as their columns
# (that file's one exception).
SMALL_TARGETS = """
const visible = (el) => {
  if (el.closest('[hidden], .visually-hidden, dialog:not([open])')) return false;
  if (!el.checkVisibility({ contentVisibilityAuto: true, visibilityProperty: true, opacityProperty: false })) return false;
  return el.getClientRects().length > 0;
};
const target = (el) => (el.tagName === 'INPUT' && el.closest('label')) || (el.matches('a.stretched') && el.closest('.pitch-card')) || el;
return [...document.querySelectorAll('button, a[href], summary, input:not([type=hidden]), select, textarea')].filter(visible)
  .map((el) => [el, target(el).getBoundingClientRect()])
  .filter(([el, box]) => box.height < 44 - 0.5 || (box.width < 44 - 0.5 && !el.matches('button.sort')))
  .map(([el, box]) => el.tagName + ' ' + (el.textContent || el.name || '').trim().slice(0, 30) + ' ' + Math.round(box.width) + 'x' + Math.round(box.height));
"""

# Elements on a projector whose text is wider or taller than their box (clipped, or spilling over
# the next box).
CLIPPED_TEXT = """
const out = [];
for (const el of document.querySelectorAll('#board *')) {
  if (el.closest('[hidden], .visually-hidden')) continue;
  const style = getComputedStyle(el); const box = el.getBoundingClientRect();
  if (style.display === 'none' || style.visibility === 'hidden' || box.width === 0) continue;
  if (!el.textContent.trim() || ['IMG', 'SELECT'].includes(el.tagName)) continue;
  const name = el.tagName + '.' + el.className + ' "' + el.textContent.trim().slice(0, 40) + '" ';
  if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0) out.push(name + el.scrollWidth + '>' + el.clientWidth);
  else if (el.scrollHeight > el.clientHeight + 2 && el.clientHeight > 0) out.push(name + 'tall ' + el.scrollHeight + '>' + el.clientHeight);
}
return out;
"""


class LanguageBrowser(Browser):
    """A phone whose browser language is `language`, as a phone set to it would be."""

    def __init__(self, server, language: str, width: int = WIDTH, height: int = HEIGHT, mobile: bool = True):
        super().__init__(server, width, height, mobile=mobile, language=language)

    def live(self):
        self.wait(lambda: self.find("#connection").get_attribute("data-status") == "live", what="a live connection")

    def lang(self) -> str:
        return self.driver.execute_script("return document.documentElement.lang")

    def visible_texts(self) -> list[str]:
        return self.driver.execute_script(VISIBLE_TEXTS)

    def small_targets(self) -> list[str]:
        return self.driver.execute_script(SMALL_TARGETS)

    def clipped_text(self) -> list[str]:
        return self.driver.execute_script(CLIPPED_TEXT)


def catalogue(language: str) -> dict:
    return json.loads((ROOT / "Public" / "i18n" / f"{language}.json").read_text(encoding="utf-8"))


def english_left(texts: list[str], language: str, names=frozenset()) -> list[str]:
    """Visible texts that are a sentence of the English catalogue where `language` says it otherwise."""
    english, own = catalogue("en"), catalogue(language)
    sentences = set()
    for key, entry in english.items():
        if isinstance(entry, str) and own[key] != entry:
            text = re.sub(r"\{\w+\}", "", entry).strip(" :·…().")
            if len(text) >= 4:
                sentences.add(text)
    return [text for text in texts
            if text not in NAMES | set(names) and (text.strip(" :·…().") in sentences
                                                   or any(len(s.split()) > 2 and s in text for s in sentences))]


WORD = re.compile(r"[^\W\d_]{2,}")


def words_of(catalogue_: dict) -> set[str]:
    out = set()
    for entry in catalogue_.values():
        for text in [entry] if isinstance(entry, str) else [v for k, v in entry.items() if k != "plural"]:
            out |= {word.lower() for word in WORD.findall(re.sub(r"\{\w+\}", " ", text))}
    return out


def english_words(texts: list[str], language: str, names=frozenset()) -> list[str]:
    """Visible texts holding a word of the English catalogue that `language`'s catalogue never uses
    (names given, and the state's own names in NAMES, are not words of the page)."""
    english, own = words_of(catalogue("en")), words_of(catalogue(language))
    named = {word.lower() for name in NAMES | set(names) for word in WORD.findall(name)}
    return [text for text in texts
            if any(word.lower() in english and word.lower() not in own and word.lower() not in named for word in WORD.findall(text))]
