"""Answers to "are A and B from the same country?": yes or no is decided by the two options'
nationalities, not by any one sentence. An NLI cross-encoder cannot compare "an American
painter" with "an American rock musician" across two sentences, so it scores "yes" and "no"
alike (on 2WikiMultihopQA tuning questions it chose no evidence for most of them). Here each
option's sentence is found (through the person the question asks about when it names one:
"the director of film A"), the nationality words in it are read ("Hungarian-American" is
both), and the answer is "yes" when the two share one; the reader sees both sentences and
the comparison (``Claim.note``).

Anything else (no nationality word found, an answer that says neither yes nor no) goes to the
entailment model as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gechat.evidence.base import QUALIFIER, ClaimInput, EvidencePool
from gechat.evidence.compare import ROLES, Found, locate, mentions
from gechat.lexical import words

# demonym -> the country it names; synonyms share a key ("English" and "British")
_COUNTRY = {
    **dict.fromkeys(["american", "u.s."], "us"),
    **dict.fromkeys(["british", "english", "scottish", "welsh"], "uk"),
    **dict.fromkeys(["argentine", "argentinian"], "ar"),
    **dict.fromkeys(["filipino", "philippine"], "ph"),
    **dict.fromkeys(["iranian", "persian"], "ir"),
    **dict.fromkeys(["korean", "south korean"], "kr"),
    **dict.fromkeys(["czechoslovak", "czechoslovakian"], "cs"),
    **dict.fromkeys(["yugoslav", "yugoslavian"], "yu"),
    **{d: d for d in ["canadian", "mexican", "irish", "french", "german", "italian", "spanish", "portuguese",
                      "dutch", "belgian", "swiss", "austrian", "swedish", "norwegian", "danish", "finnish",
                      "icelandic", "polish", "czech", "slovak", "hungarian", "romanian", "bulgarian", "greek",
                      "turkish", "russian", "soviet", "ukrainian", "belarusian", "lithuanian", "latvian",
                      "estonian", "serbian", "croatian", "slovenian", "bosnian", "albanian", "macedonian",
                      "georgian", "armenian", "israeli", "iraqi", "syrian", "lebanese", "egyptian", "moroccan",
                      "algerian", "tunisian", "nigerian", "ghanaian", "kenyan", "ethiopian", "indian",
                      "pakistani", "bangladeshi", "nepali", "chinese", "taiwanese", "japanese", "vietnamese",
                      "thai", "indonesian", "malaysian", "singaporean", "australian", "brazilian", "chilean",
                      "colombian", "peruvian", "venezuelan", "cuban", "uruguayan", "bolivian", "jamaican",
                      "ottoman", "prussian", "mongolian", "afghan", "saudi", "jordanian", "luxembourgish",
                      "maltese", "cypriot"]},
    **{d: d for d in ["north korean", "south african", "new zealand", "sri lankan", "puerto rican",
                      "hong kong", "east german", "west german"]},
}
_DEMONYM = re.compile(
    r"\b(" + "|".join(re.escape(d).replace(r"\ ", r"\s+") for d in sorted(_COUNTRY, key=len, reverse=True))
    + r")(?![\w])", re.IGNORECASE)
# "(French title: ...)", "an English-language film", "sung in Spanish": a language, not a country
# (possessive spaces: a long run of spaces is read once, not once per split between the two)
_LANGUAGE_AFTER = re.compile(r"\s*+-?\s*+(title|language|name|version|dub|translation|subtitles|word)\b",
                             re.IGNORECASE)
_LANGUAGE_BEFORE = re.compile(r"\b(in|into|from)\s+$", re.IGNORECASE)
# what may stand between two nationality words of one description
_JOINED = re.compile(r"(?:[\s,/–-]|\bborn\b|\band\b)*")
_SAME = re.compile(r"\bsame\s+(?:country|nationality|citizenship)\b", re.IGNORECASE)
# the question's body after its verb; an oracle claim quotes the question
_BODY = re.compile(r"(?:^|[\"“])\s*(?:are|were|is|was|do|does|did)\s+([^\"”]+?)\s*\?", re.IGNORECASE)
# where the options end: "... both from the same", "... have the same", "... of the same"; in
# lower case, since a title holds "Of" ("Law Of The Barbary Coast")
# Linear: (?<!\s) starts a match only where a run of spaces starts; runs and words are taken
# whole (possessive), so a long run is read once.
_CLOSING = re.compile(r",?(?<!\s)\s++(?:both\s++)?(?:from|of|have|has|had|share|shared)\s++(?:the\s+)?"
                      r"(?:same\b|\w++\s++(?:from|that|who|which)\b).*$")
_AND = re.compile(r"(?<!\s)\s++and\s+")  # linear, as _CLOSING
_LEAD = re.compile(r"^(?:both\s+)?(?:(?:the\s+)?(?:films|movies|songs|albums|people|men|women)\b\s*[:,]?\s*)?",
                   re.IGNORECASE)
_ROLE_OF = re.compile(rf"^(?:the\s+)?(?:{'|'.join(ROLES)})\s+of\s+(?:the\s+)?(?:film|movie|song|album|book|work)?\s*",
                      re.IGNORECASE)
_NO = frozenset(["no", "not", "different", "neither", "nor", "differ", "differs"])
_YES = frozenset(["yes", "same", "both"])


@dataclass(frozen=True)
class SameQuestion:
    splits: tuple[tuple[str, str], ...]  # each way to read the two options, "and" inside a name
    role: str | None  # the person of each option whose nationality counts ("director")


def parse(question: str) -> SameQuestion | None:
    """A question whether two options share a country, or None."""
    body = _BODY.search(question)
    if body is None or not _SAME.search(body.group(1)):
        return None
    span = _LEAD.sub("", _CLOSING.sub("", body.group(1))).strip(" ,")
    role = next((w.rstrip("s") for w in words(body.group(1)) if w in ROLES), None)
    parts = _AND.split(span)
    splits = []
    for i in range(1, len(parts)):
        a, b = (QUALIFIER.sub("", _ROLE_OF.sub("", " and ".join(p)) if role else " and ".join(p)).strip(" ,")
                for p in (parts[:i], parts[i:]))
        if words(a) and words(b):
            splits.append((a, b))
    return SameQuestion(tuple(splits), role) if splits else None


def claimed(claim: ClaimInput) -> bool | None:
    """Whether the answer says the two share a country (yes), do not (no), or neither."""
    rest = claim.answer()
    said = set(words(rest.replace("n't", " not")))
    if said & _NO:
        return False
    return True if said & _YES else None


def nationalities(text: str) -> tuple[frozenset[str], str] | None:
    """The countries of the text's first nationality words, and those words as written; None if
    it has none. The first words only, with those joined to them ("Ukrainian-born, Lithuanian-
    American"): a later one tells of someone or something else ("an American director best
    known for a film shot in Iceland with Icelandic actors"). A language ("the French title",
    "in English") is not a nationality."""
    found = [m for m in _DEMONYM.finditer(text)
             if not _LANGUAGE_AFTER.match(text, m.end()) and not _LANGUAGE_BEFORE.search(text[: m.start()])]
    if not found:
        return None
    run = found[:1]
    for m in found[1:]:
        if not _JOINED.fullmatch(text[run[-1].end(): m.start()]):
            break
        run.append(m)
    keys = frozenset(_COUNTRY[re.sub(r"\s+", " ", m.group().lower())] for m in run)
    shown = ", ".join(dict.fromkeys(re.sub(r"\s+", " ", m.group()) for m in run))
    return keys, shown


def find(pool: EvidencePool, q: SameQuestion) -> tuple[tuple[str, str], Found[frozenset[str]],
                                                        Found[frozenset[str]]] | None:
    """The two options as the documents name them and what each one's sentence says of its
    country: the first reading of the question whose options both have one."""
    for a, b in q.splits:
        if not mentions(pool, a) or not mentions(pool, b):
            continue
        fa, fb = (locate(pool, o, q.role, nationalities) for o in (a, b))
        if fa is not None and fb is not None:
            return (a, b), fa, fb
    return None
