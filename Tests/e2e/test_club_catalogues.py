"""The club pages' catalogues (Public/i18n/club.LANG.json): the six languages have the same keys
and the same named placeholders as English, no empty sentence, plurals with an `other` form, and
every key the club pages ask for by name (`t("…")`, `data-t`, `data-t-label`) is in English.
No server is needed: this runs on the files."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = ("en", "es", "fr", "de", "it", "pt")
PLURAL_FORM = re.compile(r"^(zero|one|two|few|many|other|=\d+)$")
# Keys built at run time from a value the API gives (a state, a kind): listed here, checked too.
BUILT_KEYS = ["ask.in", "ask.out", "ask.yes_in", "ask.yes_out", "date.status_cancelled", "date.status_played",
              *[f"mail.kind_{kind}" for kind in ("reminder", "offer", "promoted", "cancelled")],
              *[f"mail.state_{state}" for state in ("sent", "pending", "failed", "unsent")]]


def catalogue(language: str) -> dict:
    return json.loads((ROOT / "Public" / "i18n" / f"club.{language}.json").read_text(encoding="utf-8"))


def placeholders(entry) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", json.dumps(entry, ensure_ascii=False)))


@pytest.mark.parametrize("language", LANGUAGES[1:])
def test_every_language_has_englishs_keys_and_placeholders(language):
    english, other = catalogue("en"), catalogue(language)
    assert sorted(set(english) - set(other)) == [], f"club.{language}.json lacks these keys"
    assert sorted(set(other) - set(english)) == [], f"club.{language}.json has keys English has not"
    for key, entry in english.items():
        if key == "ordinal":
            continue  # forms by each language's ordinal rules, each with {n}
        assert placeholders(other[key]) == placeholders(entry), f"club.{language}.json {key}: placeholders differ"


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_empty_sentence_and_plurals_have_other(language):
    for key, entry in catalogue(language).items():
        if isinstance(entry, str):
            assert entry.strip(), f"club.{language}.json {key} is empty"
            continue
        assert "other" in entry, f"club.{language}.json {key}: needs an 'other' form"
        if key == "ordinal":
            assert all(PLURAL_FORM.match(form) and "{n}" in text for form, text in entry.items()), entry
        else:
            assert entry.get("plural"), f"club.{language}.json {key}: a plural names its count"
            assert all(PLURAL_FORM.match(form) for form in entry if form != "plural"), f"club.{language}.json {key}"


def test_every_key_the_pages_ask_for_is_in_english():
    english = catalogue("en")
    asked = set(BUILT_KEYS)
    for path in [*(ROOT / "Public" / "club").glob("*.html"), *(ROOT / "Public" / "club" / "js").glob("*.js")]:
        text = path.read_text(encoding="utf-8")
        asked |= set(re.findall(r'\bt\("([A-Za-z0-9_.]+)"', text))
        asked |= set(re.findall(r'data-t(?:-label)?="([A-Za-z0-9_.]+)"', text))
        asked |= set(re.findall(r'"(fix\.[A-Za-z0-9_]+)"', text))
    assert len(asked) > 50
    assert sorted(asked - set(english)) == []
