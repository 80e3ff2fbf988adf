"""CSV downloads, streamed row by row, that still fail properly when the database does."""

from __future__ import annotations

from itertools import chain, islice
from typing import Iterator

from flask import Response, stream_with_context

HEAD_LINES = 2  # the header and the first row: by then every query has started


def csv_attachment(lines: Iterator[str], filename: str) -> Response:
    """A CSV attachment whose first lines are made before the response starts, so that a database error
    there is an error reply (JSON 503 on the API) rather than a 200 with an empty or cut file."""
    head = list(islice(lines, HEAD_LINES))
    body = stream_with_context(chain(head, lines))
    return Response(body, mimetype="text/csv", headers={"Content-Disposition": f'attachment; filename="{filename}"'})
