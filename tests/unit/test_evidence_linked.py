"""With evidence_linked, a sentence set whose paragraphs name each other (or the claim names
them) wins over a set with a higher F that holds a paragraph about someone else."""

from __future__ import annotations

import pytest

from gechat.eval.bench import answer_claim
from gechat.evidence import bridge
from gechat.evidence.bridge import subjects
from gechat.evidence.objective import link_share
from gechat.lexical import content_keys
from gechat.types import Sentence
from tests.unit.test_evidence_compare import docs_pool
from tests.unit.test_evidence_objective import Scripted, selector, sents_of

DOCS = [
    "The Lewiston Maineiacs were a hockey team. The team played its home games at the Colisee Arena.",
    "The Colisee Arena is a hall in Lewiston. The Colisee Arena has 3,677 seats.",
    "Kasper Hvidt is a Danish goalkeeper. Eighteen teams of Lewiston played 70 games each in halls of 3,677 seats.",
]
Q = "The arena where the Lewiston Maineiacs played can seat how many people?"


@pytest.mark.parametrize(("name", "text", "share"), [
    ("Brown County, Kansas", "a protected area in Brown County, Kansas", 1.0),
    ("Brown County, Kansas", "in northern Shawnee County, Kansas", 2 / 3),  # named in part
    ("Kasper Hvidt", "the father of Kasper Schmeichel", 0.5),
    ("Starfaring", "Starfaring is a game.", 1.0),  # a name of one word, by that word
    ("The Colisee Arena", "the arena seats 3,677", 0.5),  # "The" is no word of the name
    ("2006–07 QMJHL season", "The team played at the arena.", 0.0),
    ("", "The team played at the arena.", 1.0),  # about no name: nothing to name
])
def test_name_share(name: str, text: str, share: float) -> None:
    assert bridge.name_share(name, content_keys(text)) == pytest.approx(share)


def test_link_share_is_the_least_named_paragraph() -> None:
    about = {"The team played at the Colisee Arena.": "Lewiston Maineiacs", "It seats 3,677.": "Colisee Arena",
             "Eighteen teams played 70 games.": "QMJHL season", "He voted.": "",
             "The Maineiacs played in Lewiston.": "Lewiston Hall"}
    keys = content_keys(Q)
    hop, seats, games, unnamed, hall = sents_of(*about)

    def share(*sents: Sentence) -> float:
        return link_share(keys, list(sents), lambda s: about[s.text])

    assert share(hop, seats) == 1.0  # the claim names one, the hop the other
    assert share(seats, games) == 0.0  # nothing names the season
    assert share(hop, unnamed) == 1.0  # a paragraph about no name is no hop away
    assert share(hall, seats) == 0.5  # "Lewiston" names half of Lewiston Hall, "arena" half of the Colisee Arena


def chosen(linked_set: float, *, on: bool) -> list[str]:
    """The evidence for the answer when the linked set (the hop and the seats) entails
    ``linked_set`` and the set with the hockey season's sentence 0.95."""
    pool = docs_pool(DOCS)
    hop, seats, games = (pool.sentences[i].text for i in (1, 3, 5))
    scorer = Scripted({hop: (0.3, 0.0), seats: (0.4, 0.0), games: (0.3, 0.0),
                       f"{hop} {seats}": (linked_set, 0.0), f"{seats} {games}": (0.95, 0.0)})
    (c,) = selector(scorer, linked=on).select([answer_claim(Q, "3,677 seats")], pool)
    assert c.verdict == "supported"
    return [e.text for e in c.evidence]


def test_the_linked_set_wins_over_a_higher_f() -> None:
    hop, seats, games = (docs_pool(DOCS).sentences[i].text for i in (1, 3, 5))
    assert chosen(0.8, on=True) == [hop, seats]
    # without the rule, the set with the highest F: a paragraph about a handball goalkeeper
    assert chosen(0.8, on=False) == [seats, games]


def test_an_unlinked_set_still_wins_when_no_linked_one_passes() -> None:
    _, seats, games = (docs_pool(DOCS).sentences[i].text for i in (1, 3, 5))
    assert chosen(0.45, on=True) == [seats, games]


def test_a_set_named_in_full_wins_over_one_named_in_part() -> None:
    # the fan club's paragraph is named in part by the claim ("Lewiston Maineiacs" of the Lewiston
    # Maineiacs Booster Club): a yes/no "named" let its higher F win
    docs = [*DOCS[:2], "The Lewiston Maineiacs Booster Club is a fan club. Its hall has 3,677 seats."]
    pool = docs_pool(docs)
    hop, seats, club = (pool.sentences[i].text for i in (1, 3, 5))
    scorer = Scripted({hop: (0.3, 0.0), seats: (0.4, 0.0), club: (0.4, 0.0),
                       f"{hop} {seats}": (0.8, 0.0), f"{hop} {club}": (0.95, 0.0)})
    (c,) = selector(scorer, linked=True).select([answer_claim(Q, "3,677 seats")], pool)
    assert [e.text for e in c.evidence] == [hop, seats]


def test_a_document_is_about_the_name_its_opening_chunk_opens_with() -> None:
    pool = docs_pool(["Kasper Hvidt is a Danish goalkeeper.", "He played 70 games.",
                      "The report covers 2022. Revenue rose."])
    # documents 1 and 2 are the two chunks of one document; document 3's opening chunk was not retrieved
    chunks = pool.chunks
    chunks[2] = chunks[2].model_copy(update={"doc_id": 1, "ord": 1})
    chunks[3] = chunks[3].model_copy(update={"ord": 4})
    sents = [s.model_copy(update={"doc_id": 1}) if s.chunk_id == 2 else s for s in pool.sentences]
    pool = pool.model_copy(update={"chunks": chunks, "sentences": sents})
    about = subjects(pool)
    assert [about(s) for s in pool.sentences] == ["Kasper Hvidt", "Kasper Hvidt", "", ""]
