"""HC (Trustful LLMs' Algorithm 1) with fixed triplets, names and scores: each step on its own."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from gechat.correct.hc import HallucinationCorrector
from gechat.correct.triplets import NameList, Triplet
from gechat.evidence.base import EvidencePool
from gechat.models.embed import HashingEmbedder
from gechat.types import Answer, Claim, Correction, Evidence, Verdict
from tests.unit.test_evidence_objective import Scripted

REGISTRARS = "Oray, HiChina, east.net and BIZCN are domain registrars in China."
TOWER = "The Eiffel Tower was completed in 1889."


def triplets_of(table: dict[str, list[tuple[str, str, str]]]):  # type: ignore[no-untyped-def]
    """An extractor that knows the triplets of some sentences; spans found by search."""

    def extract(texts: Sequence[str]) -> list[Triplet]:
        out = []
        for k, text in enumerate(texts):
            for s, r, o in table.get(text, []):
                si, oi = text.index(s), text.index(o)
                out.append(Triplet(s, r, o, k, (si, si + len(s)), (oi, oi + len(o)),
                                   subject_named=s[:1].isupper(), object_named=o[:1].isupper() or o.isdigit()))
        return out

    return extract


def lists_of(texts: Sequence[str]) -> list[NameList]:
    return [NameList(k, tuple((t.index(w), t.index(w) + len(w)) for w in ("GoDaddy", "Oray")), (True, True))
            for k, t in enumerate(texts) if "GoDaddy and Oray" in t]


def names_in(texts: Sequence[str]) -> list[str]:
    known = ["Oray", "HiChina", "east.net", "BIZCN", "domain registrars in China", "Eiffel Tower", "Acme Corp",
             "GoDaddy", "Paris", "China"]
    return [n for n in known if any(n in t for t in texts)]


def claim(text: str, verdict: Verdict, evidence: list[Evidence] | None = None) -> Claim:
    return Claim(text=text, source="answer", verdict=verdict, evidence=evidence or [])


def correct(answer: str, claims: list[Claim], context: list[str],
            table: dict[str, list[tuple[str, str, str]]], scores: dict[str, tuple[float, float]] | None = None,
            unsupported: Literal["keep", "unverified", "delete"] = "keep", thoughts: list[str] | None = None,
            ) -> Correction:
    hc = HallucinationCorrector(HashingEmbedder(), Scripted(scores or {}), 0.5, extract=triplets_of(table),
                                name=names_in, lists=lists_of, unsupported=unsupported)
    pool = EvidencePool.from_texts(context)
    return hc.correct(Answer(question="q", text=answer, thoughts=thoughts or [], claims=claims), pool)


def test_the_papers_example_an_unknown_item_of_a_list_is_removed() -> None:
    answer = "Domain registrars in China include GoDaddy and Oray."
    table = {answer: [("Domain registrars in China", "include", "GoDaddy"),
                      ("Domain registrars in China", "include", "Oray")],
             REGISTRARS: [("Oray", "are", "domain registrars in China")]}
    out = correct(answer, [claim(answer, "unsupported")], [REGISTRARS], table)
    assert out.text == "Domain registrars in China include Oray."
    (edit,) = out.edits
    assert (edit.kind, edit.old) == ("delete", "GoDaddy and ")
    assert edit.reason == "'GoDaddy' is not in the documents retrieved"
    assert out.eliminated == ["GoDaddy"] and out.eliminated_share == 1 / 3  # of Oray, GoDaddy, China


def test_a_sentence_about_something_the_documents_never_name_goes_a_supported_one_stays() -> None:
    answer = "The tower is in Paris. Acme Corp built it in 1887."
    table = {"Acme Corp built it in 1887.": [("Acme Corp", "built", "it")]}
    out = correct(answer, [claim("The tower is in Paris.", "supported"),
                           claim("Acme Corp built it in 1887.", "unsupported")], [TOWER], table)
    assert out.text == "The tower is in Paris."
    assert [e.kind for e in out.edits] == ["delete"] and "Acme Corp" in out.edits[0].reason
    # the same sentence found supported is never deleted, whatever the triplets say
    kept = correct(answer, [claim("Acme Corp built it in 1887.", "supported")], [TOWER], table)
    assert kept.text == answer and kept.edits == []


def test_a_wrong_object_is_replaced_by_the_documents_when_the_model_agrees() -> None:
    answer = "The Eiffel Tower was completed in 1887."
    table = {answer: [("Eiffel Tower", "completed in", "1887")], TOWER: [("Eiffel Tower", "completed in", "1889")]}
    out = correct(answer, [claim(answer, "unsupported")], [TOWER], table, {TOWER: (0.9, 0.0)})
    assert out.text == "The Eiffel Tower was completed in 1889."
    (edit,) = out.edits
    assert (edit.kind, edit.old, edit.new) == ("replace", "1887", "1889")
    assert edit.evidence is not None and edit.evidence.text == TOWER and edit.evidence.p_entail > 0.8
    # the model does not find the corrected sentence supported: no replacement; the year the
    # sources never state goes with its sentence
    out = correct(answer, [claim(answer, "unsupported")], [TOWER], table, {TOWER: (0.1, 0.0)})
    assert [(e.kind, e.reason) for e in out.edits] == [("delete", "'1887' is not in the documents retrieved")]


def test_a_contradicted_value_takes_the_sources_value() -> None:
    row = "Net income | 2018: $ 5,363 | 2017: $ 4,869 | 2016: $ 5,058 (Millions)"
    answer = "Net income was $5,363 million in 2017."
    pool = EvidencePool.from_texts([row])
    ev = pool.evidence([pool.sentences[0]], Scripted({}).score([row], answer)[0], 0.0, "nli-objective")
    out = correct(answer, [claim(answer, "contradicted", [ev])], [row], {}, {row: (0.9, 0.0)})
    assert out.text == "Net income was $4,869 million in 2017."
    assert out.edits[0].evidence is not None and out.edits[0].evidence.text == row
    # the model reads a row by its digits: the value looked up in the row naming it will do
    assert correct(answer, [claim(answer, "contradicted", [ev])], [row], {}).text == answer.replace("5,363", "4,869")
    # a value neither the model nor a lookup finds supported once put in is no correction: the sentence goes
    other = row.replace("Net income", "Comprehensive earnings")
    pool = EvidencePool.from_texts([other])
    ev = pool.evidence([pool.sentences[0]], Scripted({}).score([other], answer)[0], 0.0, "nli-objective")
    out = correct(answer, [claim(answer, "contradicted", [ev])], [other], {})
    assert out.text == "" and [(e.kind, e.reason) for e in out.edits] == [("delete", "the documents state otherwise")]
    assert out.edits[0].evidence is not None and out.edits[0].evidence.text == other


def test_a_value_of_a_list_by_year_is_read_for_the_claims_year() -> None:
    source = "Operating income was $2.2 billion, $4.2 billion, and $4.1 billion for 2015, 2016, and 2017."
    pool = EvidencePool.from_texts([source])
    cases = [("Operating income was $3,033 million in 2017.", "Operating income was $4.1 billion in 2017."),
             # the list names no sales: nothing bears the value out, the sentence goes
             ("Net sales were $3,033 million in 2017.", "")]
    for answer, fixed in cases:
        ev = pool.evidence([pool.sentences[0]], Scripted({}).score([source], answer)[0], 0.0, "nli-objective")
        assert correct(answer, [claim(answer, "contradicted", [ev])], [source], {}).text == fixed


def test_a_swap_takes_the_value_of_the_claims_year_from_a_table_row() -> None:
    row = "Days sales outstanding | 2020: 57 | 2019: 59"
    pool = EvidencePool.from_texts([row])
    question = "What is FY2020 days payable outstanding (DPO) for Corning?"
    # spaCy reads "57 | 2019" as a quantity and "59" as the row's one number: 2019's 59 is no value for 2020
    answer = "57.00"  # a fragment answer, its claim read as the answer to the question
    text = f'The answer to the question "{question}" is: 57.00'
    ev = pool.evidence([pool.sentences[0]], Scripted({}).score([row], text)[0], 0.0, "nli-objective")
    hc = HallucinationCorrector(HashingEmbedder(), Scripted({row: (0.9, 0.0)}), 0.5, extract=triplets_of({}),
                                name=names_in, lists=lists_of, unsupported="keep")
    out = hc.correct(Answer(question=question, text=answer, thoughts=[], claims=[claim(text, "unsupported", [ev])]),
                     pool)
    assert not any(e.kind == "replace" and e.new == "59" for e in out.edits), out.edits


def test_a_sum_the_answer_got_wrong_is_redone() -> None:
    answer = "The total monthly fee is $12,500 + $4,200 + $2,800 = $29,500."
    out = correct(answer, [claim(answer, "contradicted")], ["Data hosting costs $12,500 a month."], {})
    assert out.text == "The total monthly fee is $12,500 + $4,200 + $2,800 = $19,500."
    (edit,) = out.edits
    assert (edit.kind, edit.old, edit.new) == ("replace", "$29,500", "$19,500")
    assert edit.reason.startswith("its arithmetic is wrong")
    # an answer that states the wrong result of a step of its reasoning takes the right one
    growth = "Revenue grew 20.0% in 2017."
    steps = ["Growth: (3,033 - 2,371) / 2,371 * 100 = 20.0%"]
    out = correct(growth, [claim(growth, "contradicted")], ["Revenue was $3,033 million."], {}, thoughts=steps)
    assert out.text == "Revenue grew 27.9% in 2017."
    assert out.edits[0].reason.startswith("it rests on a step whose arithmetic is wrong")
    assert correct(growth, [claim(growth, "contradicted")], [], {}).text == ""  # no step: not redone


def test_a_triplet_closing_a_cycle_is_pruned_with_its_unsupported_sentence() -> None:
    answer = "Oray is in China. China hosts Oray."
    context = ["Oray is a registrar in China.", "China hosts Oray and HiChina."]
    table = {"Oray is in China.": [("Oray", "is in", "China")], "China hosts Oray.": [("China", "hosts", "Oray")]}
    out = correct(answer, [claim("Oray is in China.", "unsupported"), claim("China hosts Oray.", "unsupported")],
                  context, table)
    assert out.text == "Oray is in China."
    assert out.edits[0].reason == "what it states is already stated by the rest of the answer"


def test_a_contradicted_sentence_with_no_value_to_take_goes_with_its_evidence() -> None:
    answer = "The Eiffel Tower is in Paris. The Eiffel Tower was never completed."
    pool = EvidencePool.from_texts([TOWER])
    ev = pool.evidence([pool.sentences[0]], Scripted({}).score([TOWER], answer)[0], 0.0, "nli-objective")
    out = correct(answer, [claim("The Eiffel Tower is in Paris.", "supported"),
                           claim("The Eiffel Tower was never completed.", "contradicted", [ev])], [TOWER], {})
    assert out.text == "The Eiffel Tower is in Paris."
    (edit,) = out.edits
    assert (edit.kind, edit.reason) == ("delete", "the documents state otherwise")
    assert edit.evidence is not None and edit.evidence.text == TOWER


def test_a_contradicted_sentence_naming_what_the_sources_never_name_says_so() -> None:
    answer = "The Eiffel Tower was designed by Acme Corp."
    pool = EvidencePool.from_texts([TOWER])
    ev = pool.evidence([pool.sentences[0]], Scripted({}).score([TOWER], answer)[0], 0.0, "nli-objective")
    table = {answer: [("The Eiffel Tower", "designed by", "Acme Corp.")]}
    out = correct(answer, [claim(answer, "contradicted", [ev])], [TOWER], table)
    (edit,) = out.edits
    assert out.text == "" and edit.evidence is not None and edit.evidence.text == TOWER
    assert edit.reason == "the documents state otherwise; 'Acme Corp.' is not in them"


def test_only_the_clause_with_an_unknown_name_goes_when_the_rest_is_verified() -> None:
    answer = "The Eiffel Tower was completed in 1889 and was designed by Acme Corp."
    table = {answer: [("The Eiffel Tower", "completed in", "1889")]}
    out = correct(answer, [claim(answer, "unsupported")], [TOWER], table)
    assert out.text == "The Eiffel Tower was completed in 1889."
    (edit,) = out.edits
    assert (edit.kind, edit.old, edit.reason) == ("delete", " and was designed by Acme Corp",
                                                  "'Acme' is not in the documents retrieved")
    # nothing of the sentence verified: all of it goes
    out = correct(answer, [claim(answer, "unsupported")], [TOWER], {})
    assert out.text == "" and out.edits[0].old == answer
    # a sentence without a claim (no verdict) is left as it is
    assert correct(answer, [], [TOWER], table).text == answer
    # with "delete", the rest stays only when its evidence supports it, as the evidence stage reads it
    evidence = [Evidence(sentences=[], doc_id=1, doc_title="t", page=1, start=0, end=len(TOWER), text=TOWER,
                         p_entail=0.2, p_contradict=0.0, score=0.0, selector="s")]
    rest = "The Eiffel Tower was completed in 1889."
    for p_rest, kept in ((0.9, rest), (0.1, "")):
        out = correct(answer, [claim(answer, "unsupported", evidence)], [TOWER], table, {TOWER: (p_rest, 0.0)},
                      unsupported="delete")
        assert out.text == kept


def test_an_unsupported_sentence_nothing_repairs_goes_as_the_setting_says() -> None:
    # every name of it is in the documents, so nothing else would touch it
    answer = "The Eiffel Tower is in Paris. Oray completed the Eiffel Tower."
    context = [TOWER, REGISTRARS, "Paris is in France."]
    table = {"Oray completed the Eiffel Tower.": [("Oray", "completed", "Eiffel Tower")]}
    claims = [claim("The Eiffel Tower is in Paris.", "supported"),
              claim("Oray completed the Eiffel Tower.", "unsupported")]
    assert correct(answer, claims, context, table).edits == []  # "keep": flagged, left as it is
    modes: tuple[Literal["delete", "unverified"], ...] = ("delete", "unverified")
    for mode in modes:
        verified = mode == "unverified"  # its one triplet names two things the documents name
        out = correct(answer, claims, context, table, unsupported=mode)
        assert out.text == (answer if verified else "The Eiffel Tower is in Paris.")
        assert [e.reason for e in out.edits] == ([] if verified else ["the documents retrieved do not state it"])
    # no triplet of it verified: "unverified" deletes it too
    out = correct(answer, claims, context, {}, unsupported="unverified")
    assert out.text == "The Eiffel Tower is in Paris."
    # a supported sentence is never deleted, whatever the setting
    kept = [claim("The Eiffel Tower is in Paris.", "supported"), claim("Oray completed the Eiffel Tower.", "supported")]
    assert correct(answer, kept, context, table, unsupported="delete").edits == []
