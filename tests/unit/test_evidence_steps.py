"""Each step of the evidence chain on its own, with a scripted entailment scorer."""

from __future__ import annotations

from gechat.evidence.base import ClaimInput, EvidencePool
from gechat.evidence.candidates import Candidates
from gechat.evidence.scoring import NliScores
from gechat.evidence.sets import SentenceSets
from gechat.evidence.steps import ClaimState, EvidenceContext, active, in_context, runs
from gechat.evidence.verdict import Verdicts
from gechat.models.embed import HashingEmbedder
from gechat.types import Sentence
from tests.unit.test_evidence_objective import TEXT, Scripted, context, pool


def states(*texts: str, source: str = "answer") -> list[ClaimState]:
    return [ClaimState(claim=ClaimInput(text=t, source=source)) for t in texts]  # type: ignore[arg-type]


def scored(ctx: EvidenceContext, *texts: str) -> list[ClaimState]:
    out = states(*texts)
    Candidates(60).run(out, ctx)
    NliScores().run(out, ctx)
    return out


def test_candidates_are_the_sentences_but_headings() -> None:
    ctx = context(Scripted({}))
    (st,) = states("Alpha is red.")
    Candidates(60).run([st], ctx)
    assert [s.text for s in st.candidates] == [s.text for s in ctx.pool.sentences]
    assert st.vector is None and st.verdict is None  # no embedder: nothing ranked

    # a line without a word (a page number, a figure cut from its table) says nothing
    from gechat.evidence.base import says_nothing
    assert says_nothing("$6,205.") and says_nothing("$0 ..........") and says_nothing("47698")
    assert not says_nothing("It cost $85.") and not says_nothing("Revenue | 2018: 1,577")
    # a question asks: "RQ2: Can we reduce annotator workload ...?" is no evidence that we can
    assert says_nothing("3.2 RQ2: Can we reduce annotator workload by partially annotating a long summary?")
    assert says_nothing("He asked: \u201cIs it true?\u201d") and not says_nothing("Is it? It is, he said.")


def test_a_question_is_a_candidate_only_for_a_claim_that_reports_one() -> None:
    text = "Counsel spoke. Did you sign the lease? I did."
    sents = [Sentence(id=i + 1, doc_id=1, chunk_id=1, ord=i, page=1, start=a, end=b, text=text[a:b])
             for i, (a, b) in enumerate([(0, 14), (15, 38), (39, 45)])]
    ctx = context(Scripted({}))
    ctx.pool = ctx.pool.model_copy(update={"sentences": sents})
    told, asked = states("The witness signed the lease.", "Counsel asked whether the witness signed the lease.")
    Candidates(60).run([told, asked], ctx)
    assert [s.text for s in told.candidates] == ["Counsel spoke.", "I did."]
    assert [s.text for s in asked.candidates] == ["Counsel spoke.", "Did you sign the lease?", "I did."]


def test_a_question_joins_its_answer_in_a_set_for_a_claim_that_reports_it() -> None:
    ctx = context(Scripted({"I signed it.": (0.3, 0.0), "Did you sign the lease? I signed it.": (0.9, 0.0)}))
    ctx.pool = EvidencePool.from_texts(["Counsel spoke. Did you sign the lease? I signed it."])
    (st,) = states("Counsel asked whether the witness signed the lease, and the witness said he signed it.")
    Candidates(60).run([st], ctx)
    NliScores().run([st], ctx)
    SentenceSets(top=1, max_size=2, gain=None).run([st], ctx)  # only the best one's neighbours join it
    assert st.passes and [e.text for e in st.evidence] == ["Did you sign the lease? I signed it."]


def test_candidates_keep_the_nearest_when_there_are_too_many() -> None:
    ctx = context(Scripted({}))
    ctx.embedder = HashingEmbedder()
    (st,) = states("Beta is small and was built in 1990 by a team.")
    Candidates(1).run([st], ctx)
    assert st.vector is not None
    assert [s.text for s in st.candidates] == ["Beta is small and was built in 1990 by a team."]


def test_a_claim_with_no_candidates_is_finished_unsupported() -> None:
    ctx = context(Scripted({}))
    ctx.pool = ctx.pool.model_copy(update={"sentences": []})
    sts = states("Alpha is red.")
    Candidates(60).run(sts, ctx)
    assert sts[0].verdict == "unsupported" and active(sts) == []


def test_nli_keeps_the_best_entailing_single() -> None:
    p = pool()
    ctx = context(Scripted({p.sentences[0].text: (0.9, 0.0), p.sentences[2].text: (0.3, 0.0)}))
    (st,) = scored(ctx, "Alpha is red.")
    assert st.passes and [e.text for e in st.evidence] == ["Alpha is red."]
    assert st.probs is not None and st.probs.shape == (4, 3)


def test_nli_keeps_the_closest_single_when_none_entails() -> None:
    p = pool()
    ctx = context(Scripted({p.sentences[2].text: (0.3, 0.0)}))
    (st,) = scored(ctx, "Beta is old.")
    assert not st.passes and st.evidence[0].text == p.sentences[2].text


def test_sets_read_two_sentences_as_one_passage_only_when_needed() -> None:
    s = [x.text for x in pool().sentences]
    pair = f"{s[0]} {s[1]}"
    ctx = context(Scripted({s[0]: (0.3, 0.0), s[1]: (0.3, 0.0), pair: (0.9, 0.0)}))
    sts = scored(ctx, "Alpha is big and red.")
    SentenceSets(top=3).run(sts, ctx)
    assert sts[0].passes and [e.text for e in sts[0].evidence] == [pair]
    # a passing single is left alone when sets may not replace it
    ctx2 = context(Scripted({s[0]: (0.9, 0.0), pair: (0.95, 0.0)}))
    sts2 = scored(ctx2, "Alpha is red.")
    SentenceSets(top=3).run(sts2, ctx2)
    assert [e.text for e in sts2[0].evidence] == [s[0]]


def test_sets_keep_out_a_passenger() -> None:
    s = [x.text for x in pool().sentences]
    # the pair "Alpha is red." + "Gamma." entails, but "Gamma." holds no word of the claim
    passenger = f"{s[0]} {TEXT[75:81]}"
    ctx = context(Scripted({s[0]: (0.4, 0.0), passenger: (0.9, 0.0)}))
    with_check = scored(ctx, "Alpha is red.")
    SentenceSets(top=4, contribution=True).run(with_check, ctx)
    assert not with_check[0].passes
    without = scored(ctx, "Alpha is red.")
    SentenceSets(top=4, contribution=False).run(without, ctx)
    assert without[0].passes and "Gamma." in without[0].evidence[-1].text


def test_a_word_about_documents_is_no_contribution_to_a_set() -> None:
    from gechat.types import Chunk

    text = "Service Bulletin 737-31-1860 names the airplanes. Operation is allowed only if provisions are made."
    sents = [Sentence(id=i + 1, doc_id=1, chunk_id=1, ord=i, page=1, start=a, end=b, text=text[a:b])
             for i, (a, b) in enumerate([(0, 49), (50, len(text))])]
    p = EvidencePool(sentences=sents, chunks={1: Chunk(id=1, doc_id=1, ord=0, start=0, end=len(text), text=text,
                                                        sentence_ids=[1, 2])}, titles={1: "ad.pdf"})
    ctx = context(Scripted({sents[0].text: (0.4, 0.0), text: (0.9, 0.0)}))
    ctx.pool = p
    claim = "The information is provided in Service Bulletin 737-31-1860."
    (st,) = scored(ctx, claim)
    SentenceSets(top=4, contribution=True).run([st], ctx)
    # "provisions" shares the key of "provided", a word about where the fact is written
    assert not st.passes and [e.text for e in st.evidence] == [sents[0].text]


def test_verdict_supported_contradicted_unsupported() -> None:
    s = [x.text for x in pool().sentences]
    verdicts = []
    for claim, table in (("Alpha is red.", {s[0]: (0.9, 0.0)}), ("Alpha is tiny.", {s[1]: (0.0, 0.95)}),
                         ("The team was Delta.", {})):
        ctx = context(Scripted(table), coverage="facts")  # type: ignore[arg-type]
        (st,) = scored(ctx, claim)
        Verdicts(overlap=True).run([st], ctx)
        verdicts.append(st)
    assert [x.verdict for x in verdicts] == ["supported", "contradicted", "unsupported"]
    assert verdicts[1].evidence[0].text == s[1]  # the sentence stating the conflict is shown
    assert verdicts[2].missing == ["Delta"]  # what the closest sentence lacks


def test_verdict_ignores_contradiction_by_unrelated_text_with_overlap() -> None:
    s = [x.text for x in pool().sentences]
    ctx = context(Scripted({s[3]: (0.0, 0.95)}))
    sts = scored(ctx, "Delta flies.")
    Verdicts(overlap=True).run(sts, ctx)
    assert sts[0].verdict == "unsupported"
    sts = scored(ctx, "Delta flies.")
    Verdicts(overlap=False).run(sts, ctx)
    assert sts[0].verdict == "contradicted"
    # a shared verb is not enough where the claim names something the candidate does not
    bert = "The BERT model architecture uses multiple layers of Transformers."
    ctx.pool = EvidencePool.from_texts([bert])
    ctx.scorer = Scripted({bert: (0.01, 0.71)})
    for claim, verdict in (("SPECTER uses SciBERT as its foundation.", "unsupported"),
                           ("The BERT model architecture uses a single layer.", "contradicted")):
        sts = scored(ctx, claim)
        Verdicts(overlap=True).run(sts, ctx)
        assert sts[0].verdict == verdict


def test_runs_group_consecutive_sentences_of_a_chunk() -> None:
    s = pool().sentences
    assert [[x.ord for x in r] for r in runs([s[0], s[1], s[3]])] == [[0, 1], [3]]


def test_facts_sets_aside_steps_that_say_only_where_something_is_written() -> None:
    from gechat.evidence.facts import NoFact, states_no_fact

    q = "How big is the graph?"
    assert states_no_fact("This information is directly provided in the first sentence of the introduction.", q)
    assert states_no_fact("The question asks how big the graph is.", q)
    assert states_no_fact("According to excerpt [2], this is stated on page 3.", q)
    assert not states_no_fact("The graph has 280M nodes, as stated on page 3.", q)
    assert not states_no_fact("Revenue was $3.2 billion in 2018.", "What was revenue?")
    # a part of the document named by its quoted heading says where, like "page 3"
    assert states_no_fact('The information is presented in the "NOTES TO CONSOLIDATED FINANCIAL STATEMENTS" '
                          "section of the document.", q)
    assert states_no_fact('It is in the section titled "Risk Factors".', q)
    assert states_no_fact('The information is found in the first page of the document, under the "Florida" section.', q)
    assert states_no_fact("This directly answers the question about the number of nodes.",
                          "How many nodes does the graph have?")
    assert not states_no_fact('The "Revenue" table shows revenue of $5 million.', q)
    # how the text is written is no fact either; "interest" is not "interpretation"
    assert states_no_fact("The information is presented in a straightforward manner, without any additional "
                          "context or interpretation.", q)
    assert not states_no_fact("The interest rate is presented in the table.", q)
    # nor how the step was reached; what was needed is a fact when it names something
    assert states_no_fact("This is directly provided in the text, without needing to infer or calculate anything.", q)
    assert not states_no_fact("The company needs additional financing.", q)
    # "total" is what is being told, like "number"; a total with what it totals is a fact
    assert states_no_fact("The total number of papers is given in the first line of the table.",
                          "How many papers does the corpus contain?")
    assert not states_no_fact("The total revenue is given in the first line of the table.", q)
    # a contract names itself: "the Agreement" is the document, a list is where something is
    assert states_no_fact("This is explicitly stated in the first paragraph of the Agreement.",
                          "How long is the initial term?")
    assert states_no_fact("This fee is listed in the table provided in the document.", "What is the monthly fee?")
    assert not states_no_fact("The Agreement renews automatically for twelve months.", "Does it renew?")
    # a step that only says it answers the question, whatever it repeats of the question
    assert states_no_fact("This directly answers the question by providing the cap on liability for each party.",
                          "What is the cap on liability?")
    assert not states_no_fact("This answers the question: the cap is $1.2 million.", "What is the cap on liability?")
    assert states_no_fact("This information is directly provided in the text, making it a straightforward "
                          "answer to the question.", q)
    # what the documents hold information about is where something is, not what it is
    rd = "How much did 3M spend on research and development in 2018?"
    assert states_no_fact("The other excerpts provide additional information about research and development "
                          "expenses, but do not answer the specific question asked.", rd)
    assert states_no_fact("This information is directly provided in the first excerpt, which is the most "
                          "relevant to the question.", rd)
    assert states_no_fact("The document provides sales data for each business segment in 2018.",
                          "Which business segment had the largest net sales in 2018?")
    assert not states_no_fact("The excerpts provide data for 2017 and 2019.", rd)
    assert not states_no_fact("The table shows that research and development expenses were $1.8 billion.", rd)
    ctx = context(Scripted({}))
    sts = [ClaimState(claim=ClaimInput(text="This is stated in the abstract.", source="thought", given=q)),
           ClaimState(claim=ClaimInput(text="This is stated in the abstract.", source="answer", given=q)),
           ClaimState(claim=ClaimInput(text="Yes.", source="answer", given=q)),
           ClaimState(claim=ClaimInput(text="The graph is big.", source="answer", given=q))]
    NoFact().run(sts, ctx)
    # an answer that points into the documents says where, not what; any other is the model's
    assert [s.verdict for s in sts] == ["no fact", "no fact", None, None]
    assert active(sts) == sts[2:]


def test_sets_keep_out_a_sentence_the_model_finds_unneeded() -> None:
    s = [x.text for x in pool().sentences]
    # "Alpha is red." nearly entails alone (0.45, below the 0.5 threshold); with the next
    # sentence the pair passes (0.55), but mostly by what the first already gave
    pair = f"{s[0]} {s[1]}"
    table = {s[0]: (0.45, 0.0), s[1]: (0.1, 0.0), pair: (0.55, 0.0)}
    ctx = context(Scripted(table))
    lenient = scored(ctx, "Alpha is red.")
    SentenceSets(top=4, contribution=False, needed=None).run(lenient, ctx)
    assert lenient[0].passes  # the pair is taken without the check
    strict = scored(ctx, "Alpha is red.")
    SentenceSets(top=4, contribution=False, needed=0.15).run(strict, ctx)
    assert not strict[0].passes  # 0.55 - 0.45 < 0.15: "Alpha is big." is a passenger
    needed = scored(ctx, "Alpha is red.")
    SentenceSets(top=4, contribution=False, needed=0.05).run(needed, ctx)
    assert needed[0].passes and [e.text for e in needed[0].evidence] == [pair]


def test_in_context_adds_only_headings_the_claim_needs() -> None:
    claim = ClaimInput(text="Revenue rose 4% in 2023.", source="answer")
    assert in_context(claim, "It rose 4% in 2023.", "Acme report > Revenue") == (
        "Revenue. It rose 4% in 2023.", "Revenue")
    # the sentence names what the claim needs: read as it stands
    assert in_context(claim, "Revenue rose 4% in 2023.", "Acme report > Revenue")[1] == ""
    # a pronoun leans on its nearest heading even when the heading holds no claim word
    other = ClaimInput(text="The founder was born in 1950.", source="answer")
    assert in_context(other, "He was born in 1950.", "People > John Smith") == (
        "John Smith. He was born in 1950.", "John Smith")
    assert in_context(other, "Sales fell.", "People > John Smith") == ("Sales fell.", "")
    # "pronoun": only what a pronoun leans on; "off": the sentence alone
    assert in_context(claim, "It rose 4% in 2023.", "Acme report > Revenue", "pronoun") == (
        "Revenue. It rose 4% in 2023.", "Revenue")
    assert in_context(claim, "Sales rose 4% in 2023.", "Acme report > Revenue", "pronoun")[1] == ""
    assert in_context(claim, "It rose 4% in 2023.", "Acme report > Revenue", "off") == ("It rose 4% in 2023.", "")


def test_nli_reads_a_sentence_under_its_heading_and_shows_it_verbatim() -> None:
    p = pool()
    sents = [s.model_copy(update={"context": "Alpha"}) if i == 2 else s for i, s in enumerate(p.sentences)]
    read = f"Alpha. {p.sentences[2].text}"
    ctx = context(Scripted({read: (0.9, 0.0)}))
    ctx.pool = p.model_copy(update={"sentences": sents})
    assert not scored(ctx, "Alpha was built in 1990.")[0].passes  # by default read as it stands
    ctx.headings = "claim"
    (st,) = scored(ctx, "Alpha was built in 1990.")
    assert st.passes
    assert st.evidence[0].text == p.sentences[2].text and st.evidence[0].context == "Alpha"


def test_linked_sets_hang_together_through_names_headings_or_chunk() -> None:
    from gechat.evidence.sets import linked
    from gechat.lexical import name_words as fact_keys
    from gechat.types import Sentence

    def sent(i: int, text: str, chunk: int, context: str = "") -> Sentence:
        return Sentence(id=i, doc_id=chunk, chunk_id=chunk, ord=0, page=1, start=0, end=len(text), text=text,
                        context=context)

    anchor = fact_keys("Which office did the actress who played Corliss Archer in Kiss and Tell hold?")
    film = sent(1, "Kiss and Tell is a 1945 film starring Shirley Temple as Corliss Archer.", 1)
    office = sent(2, "As an adult, she was named Chief of Protocol.", 2, context="Shirley Temple")
    elsewhere = sent(3, "The office of Secretary of State for Constitutional Affairs was created in 2003.", 3)
    assert linked(anchor, [film, office])  # through the heading of the second: the bridge
    assert not linked(anchor, [film, elsewhere])  # nothing ties the value's sentence to the rest
    same_chunk = sent(4, "It was abolished later.", 1)
    assert linked(anchor, [film, same_chunk])
    # no names in the question: the sentences must still be tied to each other
    assert linked(frozenset(), [film, office]) and not linked(frozenset(), [film, elsewhere])
    # in one long document every heading path opens with its title: only the nearest heading ties
    intro = sent(7, "Then we describe how authors are found.", 7, context="The Literature Graph > 1 Introduction")
    nodes = sent(8, "It has 12M nodes of this type.", 8, context="The Literature Graph > 2 Structure")
    assert not linked(frozenset(), [intro, nodes])
    assert not linked(fact_keys("How many nodes does the Literature Graph have?"), [intro, nodes])
    # two sentences of one chunk tell one fact; the question's names may be in the title only
    path = "The Literature Graph in Semantic Scholar > 2 Structure"
    author = sent(9, "Each node of this type is an author.", 8, context=path)
    count = nodes.model_copy(update={"context": path})
    assert linked(fact_keys("How many nodes in Semantic Scholar?"), [author, count])
    # ... but not when nothing of theirs names what is asked about ("It" + "The tower ...")
    other = [x.model_copy(update={"chunk_id": 8, "context": "Other > 2 Structure"}) for x in (author, nodes)]
    assert not linked(fact_keys("How many nodes in Semantic Scholar?"), other)
    # a comparison: each sentence tied to the question on its own
    both = fact_keys("Are Laleli Mosque and Esma Sultan Mansion in the same neighborhood?")
    mosque, mansion = sent(5, "The Laleli Mosque is in Fatih.", 5), sent(6, "The Esma Sultan Mansion is in Ortakoy.", 6)
    assert linked(both, [mosque, mansion])


def test_a_sentence_that_only_repeats_the_others_headings_is_a_passenger() -> None:
    from gechat.evidence.sets import contributes
    from gechat.lexical import content_keys
    from gechat.types import Sentence

    title = "Construction of the Literature Graph in Semantic Scholar > Abstract"
    nodes = Sentence(id=1, doc_id=1, chunk_id=1, ord=0, page=1, start=0, end=1, context=title,
                     text="The resulting literature graph consists of more than 280M nodes.")
    site = Sentence(id=2, doc_id=1, chunk_id=1, ord=1, page=1, start=2, end=3, context=title,
                    text="The methods described in this paper are used to enable semantic features in "
                         "www.semanticscholar.org.")
    claim = content_keys("The literature graph in Semantic Scholar has more than 280M nodes.")
    assert not contributes(claim, [nodes, site])
    bare = [s.model_copy(update={"context": ""}) for s in (nodes, site)]
    assert contributes(claim, bare)  # without the headings it would seem to add "Semantic"


def test_a_weak_entailment_supports_only_from_a_sentence_about_the_claims_subject() -> None:
    from gechat.evidence.subjects import subject_keys

    claim = "The service credit applies if the breach is not cured within 30 days."
    assert subject_keys(claim) == {"servi", "credi"}
    assert not subject_keys("Scott Derrickson directed the film.") and not subject_keys("It applies.")
    from gechat.evidence.subjects import about_keys

    assert about_keys("Scott Derrickson directed the film.") == {"scott", "derri"}
    # a claim about the documents is about what it reports
    assert about_keys("The excerpt states that the service credit expires.") == {"servi", "credi"}
    assert not about_keys("It applies.")
    other = "A party may terminate if the breach is not cured within 30 days."
    about = "The service credit is due if the breach is not cured within 30 days."
    for premise, p, passes in ((other, 0.3, False), (other, 0.6, True), (about, 0.3, True)):
        ctx = context(Scripted({premise: (p, 0.0)}), supported=0.25)
        ctx.pool = EvidencePool.from_texts([premise])
        (st,) = states(claim)
        Candidates(60).run([st], ctx)
        NliScores().run([st], ctx)
        assert st.passes is passes, (premise, p)
