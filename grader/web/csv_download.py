"""CSV downloads, streamed row by row, that still fail properly when the database does."""

from __future__ import annotations

from itertools import islice
from typing import Callable, Iterator

from flask import Response, stream_with_context

HEAD_LINES = 2  # the header and the first row: by then every query has started


def csv_attachment(lines: Callable[[], Iterator[str]], filename: str) -> Response:
    """A CSV attachment streamed from `lines()`.

    The export first runs in the request as far as its first lines, so that a database error there is
    an error reply (JSON 503 on the API) rather than a 200 with an empty or cut file. The response
    then runs it afresh: a server-side cursor (PostgreSQL) does not outlive the request's session.
    """
    trial = lines()
    try:
        list(islice(trial, HEAD_LINES))
    finally:
        close = getattr(trial, "close", None)
        if close is not None:
            close()
    return Response(stream_with_context(lines()), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})  # fmt: skip
