"""Role-swap negatives: a name the premise gives another role, never a name that could stay true."""

from __future__ import annotations

import random

from training.nli_data import LABELS, NOT_ENTAILMENT, Pair
from training.swap_pairs import names, swap, swap_pairs

ENTAIL = LABELS.index("entailment")
MOONSTRUCK = ("Moonstruck is a 1987 American romantic comedy film directed by Norman Jewison and "
              "written by John Patrick Shanley.")


def test_names_are_whole_runs_of_capitalised_words_years_and_numbers() -> None:
    got = names("In 1987 the film, directed by Norman Jewison, won 3 awards at the Academy of Motion Picture Arts.")
    assert ("year", "1987") in got and ("number", "3") in got
    assert ("name", "Norman Jewison") in got and ("name", "Academy of Motion Picture Arts") in got
    assert not any(span == "In" for _, span in got)  # a lone sentence-opening word is not a name
    assert names("It was held on April 20, 2014.") == [("date", "April"), ("number", "20"), ("year", "2014")]
    assert all("LRB" not in s for _, s in names("Manchester by the Sea -LRB-film-RRB-: a tragedy."))


def test_the_director_becomes_the_writer() -> None:
    pair = Pair(MOONSTRUCK, "Moonstruck was directed by Norman Jewison.", ENTAIL, "vitaminc", "Moonstruck")
    got = swap(pair, random.Random(0))
    assert got is not None
    # the director's name is swapped for another name of the premise: the writer, or "American"
    assert got.hypothesis in {"Moonstruck was directed by John Patrick Shanley.",
                              "Moonstruck was directed by American."}
    picks = {swap(pair, random.Random(seed)).hypothesis for seed in range(20)}  # type: ignore[union-attr]
    assert "Moonstruck was directed by John Patrick Shanley." in picks
    assert got.label == NOT_ENTAILMENT and got.source == "swap_vitaminc" and got.group == "Moonstruck"
    assert got.premise == pair.premise


def test_a_year_becomes_another_year_of_the_premise() -> None:
    pair = Pair("The tower was begun in 1887 and opened in 1889.", "The tower opened in 1889.", ENTAIL, "snli_dev")
    got = swap(pair, random.Random(0))
    assert got is not None and got.hypothesis == "The tower opened in 1887."


def test_no_swap_where_the_claim_could_stay_true() -> None:
    listed = Pair("The company was founded by Ann Lee and Bob Stone in 1990.", "Ann Lee founded the company.",
                  ENTAIL, "x")
    assert swap(listed, random.Random(0)) is None  # "A and B founded": B founded it too
    alias = Pair("Edward Kennedy Ellington, known as Duke Ellington, led a band in Harlem.",
                 "Duke Ellington led a band.", ENTAIL, "x")
    # never "Edward Kennedy Ellington led a band." (the same man); Harlem is the one other name
    assert {swap(alias, random.Random(seed)).hypothesis for seed in range(10)} == {"Harlem led a band."}  # type: ignore[union-attr]
    same = Pair("It sold 5 copies on day 5.", "It sold 5 copies.", ENTAIL, "x")
    assert swap(same, random.Random(0)) is None


def test_only_entailed_pairs_are_swapped_and_the_limit_holds() -> None:
    pairs = [Pair(MOONSTRUCK, "Moonstruck was directed by Norman Jewison.", ENTAIL, "a"),
             Pair(MOONSTRUCK, "Moonstruck was directed by John Patrick Shanley.",
                  LABELS.index("contradiction"), "a")] * 3
    got = swap_pairs(pairs, random.Random(0))
    assert len(got) == 3 and all(p.label == NOT_ENTAILMENT for p in got)
    assert len(swap_pairs(pairs, random.Random(0), limit=2)) == 2


def test_with_originals_each_swap_follows_the_pair_it_was_made_from() -> None:
    pairs = [Pair(MOONSTRUCK, "Moonstruck was directed by Norman Jewison.", ENTAIL, "vitaminc", "m")]
    orig, swapped = swap_pairs(pairs, random.Random(0), originals=True)
    assert (orig.hypothesis, orig.label, orig.source) == (pairs[0].hypothesis, ENTAIL, "swap_vitaminc")
    assert swapped.label == NOT_ENTAILMENT and swapped.premise == orig.premise
    assert len(swap_pairs(pairs * 5, random.Random(0), limit=2, originals=True)) == 4
