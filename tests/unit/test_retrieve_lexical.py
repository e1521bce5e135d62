"""Word retrieval and its fusion with the vectors."""

from __future__ import annotations

from pathlib import Path

from gechat.models.embed import HashingEmbedder
from gechat.retrieve import RETRIEVERS
from gechat.retrieve.lexical import RRF_K, rrf
from gechat.settings import Settings
from gechat.store.sqlite import SQLiteStore
from tests.unit.test_store import make_doc


def test_rrf_puts_what_both_find_first_and_keeps_what_one_finds() -> None:
    fused = rrf([(1, 0.9), (2, 0.8), (3, 0.1)], [(3, 12.0), (4, 9.0)])
    assert [i for i, _ in fused] == [3, 1, 2, 4]
    assert fused[0][1] == 1 / (RRF_K + 3) + 1 / (RRF_K + 1)
    assert rrf() == [] == rrf([])


def test_bm25_and_fused_retrievers_from_the_registry(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite")
    doc = make_doc("a", dim=HashingEmbedder().dim)
    embedder = HashingEmbedder()
    doc.chunk_vectors = embedder.embed([c.text for c in doc.chunks])
    doc.sentence_vectors = embedder.embed([s.text for s in doc.sentences])
    store.insert(doc)
    for name in ("bm25", "fused", "mixed"):
        r = RETRIEVERS.create(name, Settings(), store=store, embedder=embedder)
        hits = r.retrieve("five six", 1)
        assert [h.chunk.id for h in hits] == [2], name
        assert r.rank_sentences("three four", 1)[0][0] == 2
        assert r.for_evidence(["x"], hits, 1) == hits


class _Ranked:
    """A store whose two rankings are scripted."""

    def __init__(self, meaning: list[int], words: list[int]) -> None:
        self.meaning, self.words = meaning, words

    def search(self, kind: str, q: object, k: int) -> list[tuple[int, float]]:
        return [(i, 1.0) for i in self.meaning[:k]]

    def lexical_search(self, kind: str, text: str, k: int) -> list[tuple[int, float]]:
        return [(i, 1.0) for i in self.words[:k]]


def test_mixed_keeps_the_vectors_first_places_and_adds_what_only_the_words_find() -> None:
    from gechat.retrieve.lexical import MixedRetriever

    r = MixedRetriever(_Ranked([1, 2, 3, 4], [2, 9, 8]), HashingEmbedder())  # type: ignore[arg-type]
    # k = 3: two places by meaning, the third to the best word hit not already there
    assert [i for i, _ in r.rank_sentences("q", 3)] == [1, 2, 9]
    # k = 6: two word places; fewer word hits than places leave the vectors' next ones
    assert [i for i, _ in r.rank_sentences("q", 6)] == [1, 2, 3, 4, 9, 8]
    only_meaning = MixedRetriever(_Ranked([1, 2, 3], []), HashingEmbedder())  # type: ignore[arg-type]
    assert [i for i, _ in only_meaning.rank_sentences("q", 3)] == [1, 2, 3]
    assert [s for _, s in r.rank_sentences("q", 3)] == [1.0, 0.5, 1 / 3]
    assert [i for i, _ in r.rank_sentences("q", 1)] == [1]


def test_fused_keeps_the_vectors_first_places_and_lets_the_words_rerank_the_rest() -> None:
    from gechat.retrieve.lexical import FusedRetriever

    # sentences: the vectors' ranking as is (chunks would discount a document's common names)
    r = FusedRetriever(_Ranked([1, 2, 3, 4, 5], [5, 4, 9]), HashingEmbedder())  # type: ignore[arg-type]
    ranked = [i for i, _ in r.rank_sentences("q", 6)]
    assert ranked[:2] == [1, 2]  # the words find 5 and 4 first, yet the nearest two stay
    assert ranked[2:4] == [5, 4]  # both rankings hold them: they pass 3, which only the vectors hold
    assert ranked[4:] == [3, 9]  # a hit only the words find enters, below the vectors' own third
    assert [s for _, s in r.rank_sentences("q", 3)] == [1.0, 0.5, 1 / 3]
    assert [i for i, _ in FusedRetriever(_Ranked([], [7, 8]), HashingEmbedder()).rank_sentences(  # type: ignore[arg-type]
        "q", 2)] == [7, 8]


def test_rrf_weights_and_constant() -> None:
    fused = rrf([(1, 0.0)], [(2, 0.0)], weights=(1.0, 0.5), k=5)
    assert fused == [(1, 1 / 6), (2, 0.5 / 6)]


def test_a_period_glued_to_its_year_brings_the_year() -> None:
    from gechat.store.lexical import query_words

    assert query_words("What was FY2018 capex, and in Q3 2019 or H12020?") == [
        "fy2018", "2018", "capex", "q3", "2019", "h12020", "2020"]
    assert query_words("the fy18 figure") == ["fy18", "figure"]  # no four-digit year to bring


def test_a_number_is_searched_as_the_index_cuts_it(tmp_path: Path) -> None:
    from gechat.store.lexical import number_forms, query_words

    # the tokenizer cuts "5,409" into "5" and "409": a claim's "$5409.00" is that phrase
    assert number_forms("5409.00") == ["5 409", "5409"]
    assert number_forms("1,234,567") == ["1 234 567", "1234567"]
    assert number_forms("8.70") == ["8 7"] and number_forms("0.40") == ["0 4"]
    assert number_forms("9" * 40) == ["9" * 40]  # no figure; int() of it is refused past 4,300 digits
    assert number_forms("2018,") == ["2018"]
    assert query_words("3M's $1577.00 in FY2018, 2019") == ["3m", "s", "1 577", "1577", "fy2018", "2018", "2019"]
    store = SQLiteStore(tmp_path / "s.sqlite")
    store.insert(make_doc("a", text="Cash 409 Stock 5,409 Five six.", dim=HashingEmbedder().dim))
    found = store.lexical_search("sentence", "inventories of $5409.00", 3)
    assert [s.text for s in store.sentences_of_chunks([1, 2]) if s.id in {i for i, _ in found}] == ["Stock 5,409"]


def test_a_claims_figures_are_searched_on_their_own() -> None:
    from gechat.retrieve.lexical import FusedRetriever, figures

    assert figures('The answer to "What is the FY2018 capital expenditure (in USD millions) for 3M?" is: $1577.00') \
        == ["1577.00"]
    # years, round and short figures are in any long document
    assert figures("In 2019, 100% of 5,409 units, 12.5% and 1.9% of $0.40, 2018, 3M") == ["5,409", "12.5"]

    class _Figures(_Ranked):
        def lexical_search(self, kind: str, text: str, k: int) -> list[tuple[int, float]]:
            return [(7, 1.0)] if text == "5,409" else super().lexical_search(kind, text, k)

    meaning, words = [1, 2, 3, 4, 5, 6], [3, 4, 5]
    plain = FusedRetriever(_Ranked(meaning, words), HashingEmbedder())  # type: ignore[arg-type]
    stated = FusedRetriever(_Figures(meaning, words), HashingEmbedder())  # type: ignore[arg-type]
    # a question without a figure: two rankings, 7 is nowhere
    assert 7 not in [i for i, _ in stated.rank_sentences("inventories in 2019", 6)]
    # the row stating the claim's figure counts as much as the vectors' first: above 5 and 6,
    # below what both other rankings find and the nearest two
    assert [i for i, _ in stated.rank_sentences("inventories were 5,409 in 2019", 6)] == [1, 2, 3, 4, 7, 5]
    assert 7 not in [i for i, _ in plain.rank_sentences("inventories were 5,409 in 2019", 6)]
