"""What the submission routes read from a request, checked: the submission body (JSON or a
multipart source file upload) and the history cursor."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import HTTPException, Request, status
from fastapi.exceptions import RequestValidationError
from pydantic import TypeAdapter, ValidationError
from starlette.datastructures import UploadFile

from api.deps import SettingsDep
from api.schemas import DbId, SubmissionCreate
from store import repo

_DB_ID = TypeAdapter(DbId)


@dataclass
class SubmissionBody:
    problem: str
    source: str | bytes  # bytes when uploaded as a file (decoded and checked later)
    language: str | None = None  # None: from the upload's file name, else Python
    style: str | None = None  # None: function
    filename: str | None = None  # the upload's


def _form_text(form: Any, name: str) -> str | None:
    value = form.get(name)
    return value[:64] if isinstance(value, str) and value else None


def invalid(loc: tuple[str, ...], message: str) -> RequestValidationError:
    return RequestValidationError(
        [{"type": "value_error", "loc": loc, "msg": message, "input": None}]
    )


async def read_submission_body(request: Request, settings: SettingsDep) -> SubmissionBody:
    content_type = request.headers.get("content-type", "")
    if content_type.startswith(("multipart/form-data", "application/x-www-form-urlencoded")):
        form = await request.form(max_files=1, max_fields=6)
        problem, upload = form.get("problem"), form.get("file")
        if not isinstance(problem, str):
            raise invalid(("body", "problem"), "field required: problem")
        filename = None
        if isinstance(upload, UploadFile):
            source: str | bytes = await upload.read(settings.max_source_bytes + 1)
            filename = (upload.filename or "")[:255]
        elif isinstance(text := form.get("source"), str):
            source = text
        else:
            raise invalid(("body", "file"), "field required: file (the source file upload)")
        return SubmissionBody(
            problem=problem[:64],
            source=source,
            language=_form_text(form, "language"),
            style=_form_text(form, "style"),
            filename=filename,
        )
    if content_type.split(";")[0].strip() not in ("application/json", ""):
        raise HTTPException(
            status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
            detail="send JSON {problem, source, language, style} or a multipart file upload",
        )
    try:
        payload = json.loads(await request.body())
        body = SubmissionCreate.model_validate(payload)
    except ValueError as exc:  # JSONDecodeError and ValidationError are both ValueErrors
        errors = exc.errors() if isinstance(exc, ValidationError) else None
        raise RequestValidationError(
            [{k: v for k, v in e.items() if k in ("type", "loc", "msg")} for e in errors]
            if errors
            else [{"type": "json_invalid", "loc": ("body",), "msg": str(exc)}]
        ) from exc
    return SubmissionBody(
        problem=body.problem, source=body.source, language=body.language, style=body.style
    )


SUBMISSION_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": SubmissionCreate.model_json_schema()},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["problem", "file"],
                    "properties": {
                        "problem": {"type": "string"},
                        "file": {"type": "string", "format": "binary"},
                        "language": {
                            "type": "string",
                            "description": "default: from the file name (.py, .cpp, .cc, "
                            ".java, .kt)",
                        },
                        "style": {"type": "string", "default": "function"},
                    },
                }
            },
        },
    }
}


def checked_source(body: SubmissionBody, limit: int) -> str:
    raw = body.source
    try:
        data = raw if isinstance(raw, bytes) else raw.encode("utf-8")
    except UnicodeEncodeError as exc:  # lone surrogates from JSON \ud800 escapes
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT, detail="source is not valid UTF-8 text"
        ) from exc
    if len(data) > limit:
        raise HTTPException(
            status.HTTP_413_CONTENT_TOO_LARGE, detail=f"source is larger than {limit} bytes"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            detail=f"source is not valid UTF-8 (byte {exc.start})",
        ) from exc
    if "\0" in text:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT, detail="source contains a NUL character"
        )
    return text


# ---- the history cursor ------------------------------------------------------------------

# "o" (the page older than) or "n" (newer than) a row, then the row's created_at in
# microseconds since the epoch and its id.
CURSOR = re.compile(r"^([on])\.(\d{1,17})\.(\d{1,10})$")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class HistoryCursor:
    """Where a history page starts: the rows older than `position`, or the rows newer than it.
    Given out as `<o|n>.<created_at in microseconds>.<id>`, opaque to clients."""

    older: bool
    position: repo.Position

    @classmethod
    def of(cls, row: Any, *, older: bool) -> HistoryCursor:
        """The cursor of the page older (or newer) than `row` (a history row)."""
        return cls(older=older, position=repo.Position(row.created_at, row.id))

    @classmethod
    def parse(cls, text: str) -> HistoryCursor:
        """The cursor a client sent back; 422 for anything this API did not give out."""
        match = CURSOR.match(text)
        try:
            if match is None:
                raise ValueError(text)
            created_at = EPOCH + timedelta(microseconds=int(match[2]))
            position = repo.Position(created_at, _DB_ID.validate_python(int(match[3])))
        except (ValueError, OverflowError, ValidationError) as exc:
            raise invalid(("query", "cursor"), "not a cursor this API gave out") from exc
        return cls(older=match[1] == "o", position=position)

    def __str__(self) -> str:
        micros = (self.position.created_at - EPOCH) // timedelta(microseconds=1)
        return f"{'o' if self.older else 'n'}.{micros}.{self.position.id}"
