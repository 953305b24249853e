"""Progress bars for long work, drawn only where a command asks for them.

The library's long loops (forward selection's paths, BudgetRF's forests, the refits) open a
`progress_bar`; it draws a tqdm bar on the stream set by `shown_on` (`costfs select` shows
them on stderr) and is silent everywhere else: in workflow jobs, whose logs keep the log
lines, and for the selectors. Bars nested in another (forward selection's paths inside the
held-out splits) are drawn only to the depth `shown_on` asks for: by default one line per
stage.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TextIO

_stream: ContextVar[TextIO | None] = ContextVar("costfs_progress_stream", default=None)
_levels: ContextVar[int | None] = ContextVar("costfs_progress_levels", default=None)
"""How many more levels of nested bars are drawn (None: all)."""


class _Silent:
    """The bar where none is shown."""

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, text: str) -> None:
        pass


@contextmanager
def shown_on(stream: TextIO, levels: int | None = 1) -> Iterator[None]:
    """Show the bars opened inside the block on `stream`: the outermost `levels` levels of
    nested bars (None: all)."""
    tokens = _stream.set(stream), _levels.set(levels)
    try:
        yield
    finally:
        _stream.reset(tokens[0])
        _levels.reset(tokens[1])


@contextmanager
def progress_bar(description: str, total: int | None, unit: str = "it"):
    """A progress bar with `update(n)` and `set_postfix_str(text)`: a tqdm bar on the stream
    of `shown_on` while its levels last, else one that draws nothing."""
    stream, levels = _stream.get(), _levels.get()
    if stream is None or levels == 0:
        yield _Silent()
        return
    from tqdm import tqdm

    token = _levels.set(None if levels is None else levels - 1)
    try:
        with tqdm(
            total=total, desc=description, unit=unit, file=stream, dynamic_ncols=True
        ) as shown:
            yield shown
    finally:
        _levels.reset(token)
