"""Progress bars for long work, drawn only where a command asks for them.

The library's long loops (forward selection's paths, BudgetRF's forests, the refits) open a
`progress_bar`; it draws a tqdm bar on the stream set by `shown_on` (`costfs select` shows
them on stderr) and is silent everywhere else: in workflow jobs, whose logs keep the log
lines, and for the selectors.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TextIO

_stream: ContextVar[TextIO | None] = ContextVar("costfs_progress_stream", default=None)


class _Silent:
    """The bar where none is shown."""

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, text: str) -> None:
        pass


@contextmanager
def shown_on(stream: TextIO) -> Iterator[None]:
    """Show the bars opened inside the block on `stream`."""
    token = _stream.set(stream)
    try:
        yield
    finally:
        _stream.reset(token)


@contextmanager
def progress_bar(description: str, total: int | None, unit: str = "it"):
    """A progress bar with `update(n)` and `set_postfix_str(text)`: a tqdm bar on the stream
    of `shown_on`, else one that draws nothing."""
    stream = _stream.get()
    if stream is None:
        yield _Silent()
        return
    from tqdm import tqdm

    with tqdm(total=total, desc=description, unit=unit, file=stream, dynamic_ncols=True) as shown:
        yield shown
