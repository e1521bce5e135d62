"""Entailment from a chat LLM's next-token distribution over yes / no / unknown.

For one hypothesis and many premises the prompt is ``prefix + premise + suffix`` where the
prefix (system prompt and the hypothesis) is shared: it is evaluated once, and for each
premise the KV cache is cut back to the end of the prefix, so only the premise tokens and
a ~5-token suffix are evaluated per pair.

llama-cpp-python bookkeeping this relies on (0.3.x): ``Llama.eval(tokens)`` first removes
KV entries at positions >= ``n_tokens`` (``kv_cache_seq_rm(-1, n_tokens, -1)``), decodes
``tokens`` at positions ``n_tokens..``, copies them into ``input_ids`` and advances
``n_tokens``. So setting ``n_tokens = len(prefix)`` and calling ``eval`` keeps ``input_ids``,
``n_tokens`` and the KV cache consistent, and the chat-completion path (which reuses the
longest common prefix of ``input_ids`` and its prompt) stays correct afterwards.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gechat.errors import ModelError
from gechat.models.entail.labels import softmax
from gechat.models.llm.llamacpp import SharedLlama, get_llama
from gechat.prompts import PROMPTS

# Column order of the class logits = gechat's [contradiction, neutral, entailment].
ANSWER_WORDS: tuple[tuple[str, ...], ...] = (
    ("no", "No", "NO"),
    ("unknown", "Unknown", "UNKNOWN"),
    ("yes", "Yes", "YES"),
)
_SENTINEL = "\x00GECHAT-PREMISE\x00"
_CHATML = "<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n"


class LLMEntailment:
    name = "llm"
    # ~0.75 s a pair on 2 cores: the evidence step pre-ranks candidates down to this many
    default_candidates = 3

    def __init__(
        self,
        path: Path,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        max_premise_tokens: int = 384,
        batch_size: int = 32,
        system: str | None = None,
        user_template: str | None = None,
    ) -> None:
        self.path = Path(path)
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.max_premise_tokens = max_premise_tokens
        # the model lock is released between batches so other users (the answer stream in
        # another thread) are not starved by a long scoring run
        self.batch_size = max(1, batch_size)
        # the user turn has {hypothesis} and {premise}; everything before {premise} is the
        # shared prefix, everything after it the per-hypothesis suffix evaluated per pair
        self.system = system if system is not None else PROMPTS["entail_system"]
        self.user_template = user_template if user_template is not None else PROMPTS["entail_user_prefix"] + "{premise}"
        if "{premise}" not in self.user_template:
            raise ValueError("user_template needs a {premise} placeholder")
        self._shared: SharedLlama | None = None
        self._class_ids: list[list[int]] | None = None
        self._formatter: Any = None  # None: not tried yet; False: use ChatML
        self._lead = " "  # the space moved from the template's end to the premise's start
        self.pairs_scored = 0
        self.tokens_evaluated = 0
        self.seconds = 0.0

    @property
    def shared(self) -> SharedLlama:
        if self._shared is None:
            self._shared = get_llama(self.path, self.n_ctx, self.n_threads)
        return self._shared

    # --- prompt pieces ------------------------------------------------------------------

    def _render(self, llama: Any, system: str, user: str) -> str:
        """The chat-templated prompt up to the assistant turn, in the model's own template
        (ChatML, which Qwen uses, when the GGUF has none or it cannot be rendered)."""
        if self._formatter is None:
            self._formatter = False
            template = (getattr(llama, "metadata", None) or {}).get("tokenizer.chat_template")
            if template:
                try:
                    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

                    def text(i: int) -> str:
                        return bytes(llama.detokenize([i], special=True)).decode("utf-8", "ignore")

                    self._formatter = Jinja2ChatFormatter(
                        template,
                        eos_token=text(llama.token_eos()),
                        bos_token=text(llama.token_bos()),
                    )
                except Exception:  # an exotic template: fall back to ChatML
                    self._formatter = False
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        if self._formatter:
            try:
                return str(self._formatter(messages=messages).prompt)
            except Exception:
                pass
        return _CHATML.format(system=system, user=user)

    def _prefix_suffix(self, llama: Any, hypothesis: str) -> tuple[list[int], list[int]]:
        # str.replace, not format: braces in a claim must not break the prompt
        user = self.user_template.replace("{premise}", _SENTINEL)
        user = user.replace("{hypothesis}", hypothesis.strip())
        before, after = self._render(llama, self.system, user).split(_SENTINEL, 1)
        # "Passage: " ends in a space; BPE tokenizers (Qwen's included) glue that space to
        # the next word, so it moves to the premise side to match joint tokenization
        self._lead = " " if before.endswith(" ") else ""
        before = before.rstrip(" ")
        prefix = list(llama.tokenize(before.encode("utf-8"), add_bos=True, special=True))
        suffix = list(llama.tokenize(after.encode("utf-8"), add_bos=False, special=True))
        return prefix, suffix

    def _premise_tokens(self, llama: Any, premise: str, budget: int) -> list[int]:
        # special=False: a premise that contains "<|im_end|>" must stay plain text
        toks = list(llama.tokenize((self._lead + premise.strip()).encode("utf-8"), add_bos=False, special=False))
        return toks[:budget]

    def _answer_ids(self, llama: Any) -> list[list[int]]:
        if self._class_ids is None:
            classes: list[list[int]] = []
            for words in ANSWER_WORDS:
                ids: set[int] = set()
                for word in words:
                    for variant in (word, " " + word):
                        toks = llama.tokenize(variant.encode(), add_bos=False, special=False)
                        if len(toks) == 1:
                            ids.add(int(toks[0]))
                if not ids:  # no single-token spelling: fall back to the first piece
                    ids.add(int(llama.tokenize(words[0].encode(), add_bos=False)[0]))
                classes.append(sorted(ids))
            flat = [i for c in classes for i in c]
            if len(flat) != len(set(flat)):
                raise ModelError(f"{self.path.name}: yes/no/unknown share a token id")
            self._class_ids = classes
        return self._class_ids

    # --- scoring ------------------------------------------------------------------------

    def _class_logits(self, llama: Any) -> npt.NDArray[np.float64]:
        ptr = llama._ctx.get_logits_ith(-1)
        if not ptr:
            raise ModelError("llama.cpp returned no logits")
        logits = np.ctypeslib.as_array(ptr, shape=(llama.n_vocab(),))
        out = np.empty(3, dtype=np.float64)
        for c, ids in enumerate(self._answer_ids(llama)):
            v = logits[ids].astype(np.float64)
            m = v.max()
            out[c] = m + np.log(np.exp(v - m).sum())  # log-sum-exp over spellings
        return out

    def _rewind(self, llama: Any, prefix: list[int]) -> int:
        """Leave exactly ``prefix`` in the KV cache; return how many tokens that evaluated.

        Only an exact, whole-prefix match is reused. llama.cpp's numbers depend on how tokens
        were split into decode calls (~0.1 logit on these Q4 models), so reusing a partial
        match (say the system prompt left by the answer LLM) would make a pair's score
        depend on what ran before; a whole prefix evaluated in one call from an empty cache
        keeps scores reproducible. The system prompt is ~30 tokens: re-evaluating it once per
        hypothesis costs little.
        """
        n = len(prefix)
        if (
            llama.n_tokens >= n
            and np.array_equal(llama.input_ids[:n], prefix)
            # False for models whose memory cannot be cut (recurrent): start over then
            and llama._ctx.kv_cache_seq_rm(-1, n, -1)
        ):
            llama.n_tokens = n
            return 0
        llama.reset()
        llama._ctx.kv_cache_clear()
        llama.eval(prefix)
        return n

    def score(self, premises: Sequence[str], hypothesis: str) -> npt.NDArray[np.float32]:
        return self._score(premises, hypothesis, reuse=True)

    def score_uncached(self, premises: Sequence[str], hypothesis: str) -> npt.NDArray[np.float32]:
        """Each pair evaluated from an empty KV cache (the reference for tests; slow)."""
        return self._score(premises, hypothesis, reuse=False)

    def _score(self, premises: Sequence[str], hypothesis: str, *, reuse: bool) -> npt.NDArray[np.float32]:
        out = np.zeros((len(premises), 3), dtype=np.float64)
        t0 = time.perf_counter()
        for start in range(0, len(premises), self.batch_size):
            with self.shared.use() as llama:
                prefix, suffix = self._prefix_suffix(llama, hypothesis)
                budget = min(self.max_premise_tokens, llama.n_ctx() - len(prefix) - len(suffix) - 1)
                if budget < 8:
                    raise ModelError(
                        f"the hypothesis is too long for the context ({len(prefix)} tokens)",
                        hint="raise llm_context or check shorter claims",
                    )
                for i in range(start, min(start + self.batch_size, len(premises))):
                    body = self._premise_tokens(llama, premises[i], budget) + suffix
                    if reuse:
                        self.tokens_evaluated += self._rewind(llama, prefix)
                        llama.eval(body)
                        self.tokens_evaluated += len(body)
                    else:
                        # same two decode calls as the reuse path: llama.cpp's numbers depend
                        # on how tokens are split into batches (~0.1 logit), so only an
                        # identical split makes "from scratch" comparable bit for bit
                        llama.reset()
                        llama._ctx.kv_cache_clear()
                        llama.eval(prefix)
                        llama.eval(body)
                        self.tokens_evaluated += len(prefix) + len(body)
                    out[i] = self._class_logits(llama)
        self.pairs_scored += len(premises)
        self.seconds += time.perf_counter() - t0
        probs: npt.NDArray[np.float32] = softmax(out).astype(np.float32)
        return probs
