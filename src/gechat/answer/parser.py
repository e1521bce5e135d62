"""Parse what small models really print for the ``Answer:`` / ``Thoughts:`` shape.

Seen in practice (fixtures in tests/fixtures/llm_outputs): Markdown bold or ``###``
headers, the two sections swapped, steps inline on one line ("1. a 2. b"), bullets instead
of numbers, "Step 1:" prefixes, code fences, chatty preambles, braces copied from the
template, and no thoughts at all. The parser never raises: worst case the whole reply is
the answer and there are no thoughts.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

# [ \t], not \s: a \s* that may cross lines, tried at every line start, read a run of blank
# lines once per line (quadratic); possessive quantifiers never give back what they took.
_FENCE = re.compile(r"^[ \t]*+```[a-zA-Z]*+[ \t]*+$", re.M)
_EMPH = re.compile(r"(\*\*|__)")
_ANSWER_HDR = re.compile(
    r"^[ \t>#]*(?:final[ \t]+)?answer[ \t]*(?::|：|\n)|\b(?:final[ \t]+)?answer(?:[ \t]+is)?[ \t]*[:：]",
    re.I | re.M,
)
_THOUGHT_HDR = re.compile(
    r"^[ \t>#]*(?:thoughts?|reasoning(?:[ \t]+steps)?|steps|explanation|thinking|rationale)"
    r"[ \t]*(?::|：|\n)"
    r"|\b(?:thoughts?|reasoning(?:[ \t]+steps)?)[ \t]*[:：]",
    re.I | re.M,
)
_ITEM_LINE = re.compile(r"^\s*(?:\d{1,2}[.)]|[-*•+]|step\s*\d{1,2}\s*[:.)-])\s+(.*\S)\s*$", re.I)
_INLINE_NUM = re.compile(r"(?:^|(?<=\s)|(?<=\{))(\d{1,2})[.)](?:\s+(?=\S)|(?=\[))")
_STEP_PREFIX = re.compile(r"^(?:step\s*\d{1,2}\s*[:.)-]\s*|(?:conclusion|final answer|answer|result)\s*:\s*)", re.I)
_PREAMBLE = re.compile(r"^(?:sure|certainly|okay|ok|of course|here is|here's)\b[^\n]*?[:!.,]\s*", re.I)


class ParsedAnswer(BaseModel):
    answer: str
    thoughts: list[str] = Field(default_factory=list)
    had_headers: bool = False


def _clean(text: str) -> str:
    text = text.strip().strip("{}[]").strip()
    text = _STEP_PREFIX.sub("", text)
    return re.sub(r"\s+", " ", text).strip(" \"'")


def _split_items(block: str) -> list[str]:
    """Numbered/bulleted lines, else sequential inline numbers, else one item per line."""
    block = block.strip().strip("{}").strip()
    lines = [ln for ln in block.splitlines() if ln.strip()]
    items: list[str] = []
    for ln in lines:
        m = _ITEM_LINE.match(ln)
        if m:
            items.append(m.group(1))
        elif items:
            items[-1] += " " + ln.strip()  # continuation of the previous step
        else:
            items.append(ln)
    if len(items) <= 1:
        _, inline = _split_inline(block)
        if inline:
            items = inline
    cleaned = [_clean(i) for i in items]
    # "Conclusion:" or "Comparing the two:" alone is a heading, not a step
    return [c for c in cleaned if c and not (c.endswith(":") and len(c.split()) <= 6)]


def _split_inline(block: str) -> tuple[str, list[str]]:
    """'x 1. a 2. b' -> ('x', [a, b]); numbers must run 1, 2, 3... so '3.5' or 'in 2. ' don't cut."""
    cuts: list[tuple[int, int]] = []
    expect = 1
    for m in _INLINE_NUM.finditer(block):
        if int(m.group(1)) == expect:
            cuts.append((m.start(), m.end()))
            expect += 1
    if len(cuts) < 2:
        return block, []
    items = [block[start:(cuts[i + 1][0] if i + 1 < len(cuts) else len(block))]
             for i, (_, start) in enumerate(cuts)]
    return block[: cuts[0][0]], items


def _pick_answer_header(found: list[re.Match[str]], t: re.Match[str] | None) -> re.Match[str] | None:
    """'... the answer is: Answer: X Thoughts: ...': the header nearest before the thoughts."""
    if not found:
        return None
    if t is not None:
        before = [m for m in found if m.end() <= t.start()]
        after = [m for m in found if m.start() >= t.end()]
        if before:
            return before[-1]
        if after:
            return after[0]
    return found[0]


def parse_cot(raw: str, max_thoughts: int = 10) -> ParsedAnswer:
    text = _EMPH.sub("", _FENCE.sub("", raw or "")).replace("\r", "").strip()
    t = _THOUGHT_HDR.search(text)
    a = _pick_answer_header(list(_ANSWER_HDR.finditer(text)), t)
    if t is not None and a is not None and t.start() == a.start():
        t = None
    answer: str
    thoughts_block = ""
    if a is not None and t is not None:
        if a.start() < t.start():
            answer, thoughts_block = text[a.end():t.start()], text[t.end():]
        else:
            thoughts_block, answer = text[t.end():a.start()], text[a.end():]
    elif a is not None:
        rest = text[a.end():].strip()
        first, _, tail = rest.partition("\n")
        if tail and any(_ITEM_LINE.match(ln) for ln in tail.splitlines()):
            # a numbered list after the answer but no 'Thoughts:' header: those are the steps
            answer, thoughts_block = first, tail
        else:
            head, inline = _split_inline(rest)
            answer = head if inline else rest
            thoughts_block = rest[len(head):] if inline else ""
    elif t is not None:
        # steps may precede the 'Thoughts:' block too; the answer is their conclusion
        answer, _ = _split_headerless(text[: t.start()])
        thoughts_block = text[t.end() :]
    else:
        answer, thoughts_block = _split_headerless(text)
    thoughts = _split_items(thoughts_block)[:max_thoughts] if thoughts_block.strip() else []
    answer_text = _clean(_PREAMBLE.sub("", answer.strip()))
    if not answer_text and thoughts:
        answer_text = thoughts[-1]  # a model that only listed steps: its last step concludes
    return ParsedAnswer(answer=answer_text, thoughts=thoughts, had_headers=a is not None or t is not None)


_CONCLUSION = re.compile(
    r"(?:^|(?<=[\s.:]))(?:therefore|thus|hence|so|in conclusion|in summary|to conclude|"
    r"based on (?:this|these|the|all)[^,.:]*|the (?:final )?answer is)\b[,:]?\s*",
    re.I,
)


def _split_headerless(text: str) -> tuple[str, str]:
    """No headers: steps are the list items; the answer is the concluding sentence."""
    lines = text.splitlines()
    item_idx = [i for i, ln in enumerate(lines) if _ITEM_LINE.match(ln)]
    steps = "\n".join(lines[item_idx[0] : item_idx[-1] + 1]) if len(item_idx) >= 2 else ""
    conclusions = list(_CONCLUSION.finditer(text))
    if conclusions:
        # the whole sentence holding the last cue, cue included ("So the answer is 42.")
        cut = conclusions[-1].start()
        line_start = text.rfind("\n", 0, cut) + 1
        sent_end = text.rfind(". ", line_start, cut)
        start = sent_end + 2 if sent_end != -1 else line_start
        first, _, rest = text[start:].strip().partition("\n")
        if first.rstrip().endswith(":") and rest.strip():  # "... the answer is:\n\nShinee"
            first = f"{first.rstrip()} {rest.strip().splitlines()[0].strip()}"
        return first, steps
    if steps:
        before = "\n".join(lines[: item_idx[0]]).strip()
        after = "\n".join(lines[item_idx[-1] + 1 :]).strip()
        answer = after or ("" if before.endswith(":") else before)
        return answer, steps
    return text, ""
