"""The pages' catalogues (Public/i18n/*.json): the same keys and the same named placeholders in
all six languages, plural entries the pages' Intl.PluralRules can choose from, and every sentence
key the server can send (the raw values of Swift's `SentenceKey`) translated in every catalogue.
No server needed: this reads the files."""
from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = ["en", "es", "pt", "fr", "de", "it"]
PLACEHOLDER = re.compile(r"\{(\w+)\}")
# The categories Intl.PluralRules can return, and the exact-number forms t() also reads.
PLURAL_FORM = re.compile(r"^(zero|one|two|few|many|other|=\d+)$")


def catalogue(language: str) -> dict:
    return json.loads((ROOT / "Public" / "i18n" / f"{language}.json").read_text(encoding="utf-8"))


def texts(entry) -> list[str]:
    return [entry] if isinstance(entry, str) else [text for form, text in entry.items() if form != "plural"]


def placeholders(entry) -> set[str]:
    return {name for text in texts(entry) for name in PLACEHOLDER.findall(text)}


def server_keys() -> set[str]:
    source = (ROOT / "Sources" / "Model" / "ServerSentence.swift").read_text(encoding="utf-8")
    body = source[source.index("enum SentenceKey"):source.index("public init(_ code")]
    keys = set()
    for line in re.findall(r"^\s*case ([^\n]+)", body, re.MULTILINE):
        for part in line.split(","):
            match = re.match(r"\s*(\w+)(?:\s*=\s*\"([^\"]+)\")?", part)
            if match:
                keys.add(match.group(2) or match.group(1))
    return keys


def test_every_catalogue_has_the_same_keys_and_placeholders():
    english = catalogue("en")
    assert len(english) > 150
    for language in LANGUAGES[1:]:
        other = catalogue(language)
        assert sorted(set(english) - set(other)) == [], f"{language}.json lacks these keys"
        assert sorted(set(other) - set(english)) == [], f"{language}.json has keys English has not"
        for key, entry in english.items():
            assert placeholders(other[key]) == placeholders(entry), f"{language}.json {key}: placeholders differ"


def test_plural_entries_name_their_number_and_have_an_other_form():
    for language in LANGUAGES:
        for key, entry in catalogue(language).items():
            if isinstance(entry, str):
                assert entry.strip(), f"{language}.json {key} is empty"
                continue
            assert entry.get("plural") and "other" in entry, f"{language}.json {key}: a plural needs 'plural' and 'other'"
            assert all(PLURAL_FORM.match(form) for form in entry if form != "plural"), f"{language}.json {key}: {list(entry)}"
            assert "{" + entry["plural"] + "}" in entry["other"], f"{language}.json {key}: 'other' does not show its number"


def test_every_sentence_the_server_can_send_is_translated_everywhere():
    keys = server_keys()
    assert {"duplicate_goal", "username_rule", "removed", "link_lost", "added_goal"} <= keys
    for language in LANGUAGES:
        entries = catalogue(language)
        assert sorted(key for key in keys if f"server.{key}" not in entries) == [], f"{language}.json"


# German says "Team A" too.
SAME_ON_PURPOSE = {("de", key) for key in ("org.team_a", "org.team_b", "page.team_a", "page.team_b")}
# The trust page's step "3b. Android" is a platform's name everywhere.
SAME_ON_PURPOSE |= {(language, "trust.step_android") for language in LANGUAGES[1:]}


def test_no_sentence_is_left_in_english():
    """A word may be the same (Amateur, Position, Live); a sentence of several words may not."""
    english = catalogue("en")
    for language in LANGUAGES[1:]:
        other = catalogue(language)
        same = [key for key, entry in english.items()
                if isinstance(entry, str) and other[key] == entry and (language, key) not in SAME_ON_PURPOSE and " " in PLACEHOLDER.sub("", entry).strip(" ()·:!-–")]
        assert same == [], f"{language}.json copies English for {same}"
