"""A supported answer to a question comparing two options gets the other option's sentence when
its evidence mentions only one."""

from __future__ import annotations

import pytest

from gechat.evidence import options
from gechat.evidence.base import ClaimInput
from tests.unit.test_evidence_compare import docs_pool
from tests.unit.test_evidence_objective import Scripted, selector

DOCS = [
    "Ola Berg (1880 – 1950) was a Norwegian composer. He wrote four operas.",
    "Karl Lund is a village near the coast. Karl Lund (1875 – 1940) was a Danish composer.",
    "Mira Holm was a Swedish painter.",
]
Q = "Which composer was from Norway, Ola Berg or Karl Lund?"


def claim(question: str, answer: str) -> ClaimInput:
    given = f'The answer to the question "{question}" is:'
    return ClaimInput(text=f"{given} {answer}", source="answer", given=given)


@pytest.mark.parametrize(("question", "found"), [
    (Q, ("Ola Berg", "Karl Lund")),
    ("Were Ola Berg and Karl Lund both composers?", ("Ola Berg", "Karl Lund")),
    ("Was Ola Berg or Karl Lund born first?", ("Ola Berg", "Karl Lund")),
    ("Which came first, Red Harbour (Film) or Blue Bay?", ("Red Harbour", "Blue Bay")),
    ("Which band, Letters to Cleo or Screaming Trees, had more members?", ("Letters to Cleo", "Screaming Trees")),
    ("Where was Ola Berg born?", None),
    ("Which is older, Ola Berg or Ola Berg?", None),
])
def test_options(question: str, found: tuple[str, str] | None) -> None:
    assert options.options(question) == found


def test_the_other_option_is_added() -> None:
    norwegian = DOCS[0].split(". ")[0] + "."
    danish = DOCS[1].split(". ")[1]
    sel = selector(Scripted({norwegian: (0.9, 0.01)}), options=True)
    (c,) = sel.select([claim(Q, "Ola Berg")], docs_pool(DOCS))
    assert c.verdict == "supported"
    # the sentence about Karl Lund that says the same kind of thing, not the village's
    assert [e.text for e in c.evidence] == [norwegian, danish]
    (c,) = selector(Scripted({norwegian: (0.9, 0.01)}), options=False).select([claim(Q, "Ola Berg")],
                                                                              docs_pool(DOCS))
    assert [e.text for e in c.evidence] == [norwegian]


def test_nothing_is_added_when_both_or_neither_are_there() -> None:
    both = "Ola Berg was Norwegian, Karl Lund was not."
    pool = docs_pool([*DOCS, both])
    (c,) = selector(Scripted({both: (0.9, 0.01)}), options=True).select([claim(Q, "Ola Berg")], pool)
    assert [e.text for e in c.evidence] == [both]
    # a question that compares nothing
    q = "Where was Ola Berg born?"
    norwegian = DOCS[0].split(". ")[0] + "."
    (c,) = selector(Scripted({norwegian: (0.9, 0.01)}), options=True).select([claim(q, "Norway")],
                                                                             docs_pool(DOCS))
    assert [e.text for e in c.evidence] == [norwegian]


def test_the_other_options_own_page_is_preferred() -> None:
    # a page about a toy dog names the terrier with more of the evidence's words than the
    # terrier's own page does
    docs = ["The Scotch Collie is a landrace breed of dog from Scotland. Other ancestors include the Gordon Setters.",
            "The Russian Toy is a small breed of dog from Russia, unlike the Manchester Terrier.",
            "The Manchester Terrier is a smooth-haired terrier."]
    q = "Which dog's ancestors include Gordon Setters: the Manchester Terrier or the Scotch Collie?"
    pool = docs_pool(docs)
    collie = next(s for s in pool.sentences if s.text.startswith("The Scotch Collie"))
    found = options.find(pool, q, [collie])
    assert found is not None and found.text == docs[2]
    found = options.find(docs_pool(docs[:2]), q, [collie])
    assert found is not None and found.text == docs[1]
