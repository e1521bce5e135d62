"""Every prompt gechat sends to an LLM, in one place.

Written for small local models (Qwen2.5 0.5B/1.5B): short, explicit about the output
shape, no few-shot padding that would cost prompt tokens on a CPU.
"""

from __future__ import annotations

PROMPTS: dict[str, str] = {}

# --- answer: chain-of-thought with a fixed output shape (GE-Chat / EvidenceChat) ---
PROMPTS["answer_system"] = (
    "You answer questions using only the document excerpts you are given. "
    "If the excerpts do not contain the answer, say that the documents do not say.\n"
    "Reply in exactly this shape and nothing else:\n"
    "Answer: <a direct answer in one to three sentences>\n"
    "Thoughts:\n"
    "1. <a reasoning step, citing what the excerpts state>\n"
    "2. <the next step>\n"
    "Use at most {max_thoughts} steps, each one sentence."
)
# The format is restated last: small models follow the most recent instruction, and
# without it the 1.5B model often answers with one copied sentence and no steps.
PROMPTS["answer_user"] = (
    "Excerpts:\n{context}\n\nQuestion: {question}\n\n"
    "Reply with 'Answer:' and then 'Thoughts:' followed by numbered steps."
)
# a guided model (llm_backend = trustful) reads the excerpts in a pass of their own
PROMPTS["answer_user_guided"] = (
    "Question: {question}\n\n"
    "Reply with 'Answer:' and then 'Thoughts:' followed by numbered steps."
)
PROMPTS["context_item"] = "[{n}] ({title}, page {page})\n{text}"

# --- entailment with an LLM: hypothesis first, so its tokens form a shared, cached
# prefix and only the premise is evaluated per candidate ---
PROMPTS["entail_system"] = (
    "You judge whether a passage proves a statement. Reply with one word: "
    "yes, no, or unknown."
)
PROMPTS["entail_user_prefix"] = (
    "Statement: {hypothesis}\n"
    "Reply yes if the passage below shows the statement is true, no if it shows the "
    "statement is false, unknown if it does not settle it.\n"
    "Passage: "
)

# --- EvidenceChat reflection: the LLM picks, verbatim, which candidates support a step ---
PROMPTS["reflect_system"] = (
    "You check whether sentences from a document support a statement. "
    "Copy, word for word, only the given sentences that support the statement. "
    "Never change a sentence, never add one that is not in the list, and return an empty "
    "list when none of them supports it. Reply with JSON only."
)
PROMPTS["reflect_user"] = (
    "Statement: {claim}\n\nSentences:\n{sentences}\n\n"
    'Reply as {{"supporting": [<sentences copied exactly>]}} with at most {k} sentences.'
)
PROMPTS["reflect_item"] = "- {text}"

# --- the papers' baseline: the LLM quotes its own evidence from the excerpts ---
PROMPTS["quote_system"] = (
    "You find the evidence for a statement in document excerpts. Quote, word for word, "
    "the sentences of the excerpts that show the statement is true. Reply with JSON only."
)
PROMPTS["quote_user"] = (
    "Excerpts:\n{context}\n\nStatement: {claim}\n\n"
    'Reply as {{"quotes": [<exact sentences from the excerpts>]}} with at most {k} quotes.'
)

# --- knowledge graph (GE-Chat step 2): entities and relations of one excerpt, as JSON ---
PROMPTS["graph_system"] = (
    "You build a knowledge graph from a document excerpt. List the specific things it names "
    "(people, organisations, places, products, works, events, technical concepts), each with "
    "its name written exactly as in the text and a short description of what the text says "
    "about it. Then list how they relate, only between listed names. Skip numbers, dates and "
    "generic words. Reply with JSON only."
)
PROMPTS["graph_user"] = "Excerpt:\n{text}"
# gleaning: a second look for what the first pass missed
PROMPTS["graph_glean"] = (
    "Already found: {names}.\nList only the things and relations of the excerpt that are "
    "missing from that list, or empty lists if none are missing."
)
# relation probing: pairs that share a sentence but got no relation
PROMPTS["probe_system"] = (
    "You check how pairs of named things relate according to a text. For each numbered pair, "
    "say whether the text states a relation between the two; if it does, give two or three "
    "keywords and one short sentence describing it. Reply with JSON only."
)
PROMPTS["probe_user"] = "Text:\n{text}\n\nPairs:\n{pairs}"
PROMPTS["probe_item"] = "{n}. {a} -- {b}"

# --- benchmarks only (benchmarks/evidence_ablations.py): a question as a statement
# template, so an oracle claim reads like an answer sentence ---
PROMPTS["claim_template_system"] = (
    "You turn a question into a declarative sentence. Write the sentence that states the "
    "answer, with the word ANSWER where the answer goes. Keep every name of the question. "
    "Reply with the sentence only."
)

# --- atomic claims (evidence/atoms.py) ---
PROMPTS["atoms_system"] = (
    "You split a statement into the separate facts it states, so each can be checked on its own. "
    "Write each fact as a full sentence that makes sense alone: repeat the subject instead of "
    "'he', 'it' or 'they'. Keep every name, number and date exactly as the statement writes it. "
    "Do not add, explain or drop anything. A statement of one fact stays one sentence. "
    "Reply with JSON only: {\"facts\": [\"...\"]}."
)
PROMPTS["atoms_user"] = "Statement: {claim}"


# --- hallucination correction (correct/llm_triplets.py): knowledge triplets of numbered sentences ---
PROMPTS["triplets_system"] = (
    "You list the facts that sentences state as triplets: subject, relation, object. Copy the "
    "subject and the object word for word from the sentence (a name, a thing, a number or a date); "
    "the relation is the verb with its preposition, as short as possible. Give every fact of "
    "every sentence, with the number of its sentence. Reply with JSON only."
)
PROMPTS["triplets_user"] = "Sentences:\n{sentences}"
PROMPTS["triplets_item"] = "{n}. {text}"

# --- benchmarks only (benchmarks/correction_own.py): how grounded an answer is, 1 to 5 ---
PROMPTS["groundedness_system"] = (
    "You grade how well an answer is backed by document excerpts. Read the excerpts, then the "
    "answer, and give one score: 5 every statement of the answer is stated by the excerpts; "
    "4 nearly all of it, a minor detail is not; 3 about half of it; 2 most of it is not in "
    "the excerpts; 1 none of it is, or the excerpts say otherwise. Judge only whether the "
    "excerpts back the answer, not whether it is true or useful. Reply with JSON only."
)
PROMPTS["groundedness_user"] = (
    "Excerpts:\n{context}\n\nAnswer: {answer}\n\n"
    'Reply as {{"score": <1 to 5>}}.'
)

# --- Chain of Evidence (retrieve/coe.py): a question's intent, keywords and relations, as JSON.
# The unknown is written as "someone" / "something", so the intent and each relation are
# statements the grounding model can check against a snippet. The examples are our own.
PROMPTS["coe_system"] = (
    "You describe what the answer to a question must rest on, for a search through documents. "
    "intent: one sentence that states the answer, with the unknown part written as someone, "
    "something, some place, some date or some amount. keywords: the names, terms, figures and "
    "dates of the question, copied word for word. relations: each link the answer needs between "
    "the keywords, one short statement each, the unknown written the same way. Reply with JSON only."
)
PROMPTS["coe_user"] = "Question: {question}"
COE_EXAMPLES: list[tuple[str, str]] = [
    ("What was the net revenue of the segment that Acme sold in 2021?",
     '{"intent": "The segment that Acme sold in 2021 had a net revenue of some amount.", '
     '"keywords": ["net revenue", "segment", "Acme", "2021"], '
     '"relations": ["Acme sold some segment in 2021.", "Some segment had a net revenue of some amount."]}'),
    ("Who must approve a change to the payment terms under the supply agreement?",
     '{"intent": "Someone must approve a change to the payment terms under the supply agreement.", '
     '"keywords": ["payment terms", "supply agreement", "approve"], '
     '"relations": ["A change to the payment terms needs the approval of someone."]}'),
    ("Which university did the first author of the attention paper study at?",
     '{"intent": "The first author of the attention paper studied at some university.", '
     '"keywords": ["first author", "attention paper", "university"], '
     '"relations": ["Someone is the first author of the attention paper.", '
     '"That author studied at some university."]}'),
]

# --- TrustfulLLM (trustful/): the dual decoder reads the context in its own pass, so its
# prompt holds only the question; the RAG rows of benchmarks/trustful.py put the same
# context into the prompt instead ---
PROMPTS["trustful_system"] = (
    "Answer the question from the context you were given, in a few words or one short "
    "sentence. Use only what the context states."
)
PROMPTS["trustful_user"] = "Question: {question}"
PROMPTS["trustful_rag_user"] = "Context:\n{context}\n\nQuestion: {question}"
PROMPTS["trustful_context_item"] = "[{n}] {text}"
