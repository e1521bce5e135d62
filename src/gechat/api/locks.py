"""Process-wide locks: the resources behind them are process-wide too.

LLM_LOCK: there is one local model per process; two generations at once would only slow
each other (llama.cpp) or corrupt its state. MUPDF_LOCK: MuPDF is not thread-safe, so
parsing a PDF and rendering a page never overlap.
"""

from __future__ import annotations

import threading

LLM_LOCK = threading.Lock()
MUPDF_LOCK = threading.Lock()
