"""Decodes a Bot API request the ways Telegram accepts it: query string, urlencoded form, JSON, multipart.

PTB sends form fields as strings (JSON-encoded when the value is not a string) and files as multipart
parts; an `attach://<name>` reference inside a JSON field names one of those parts. Values therefore
stay as sent here and `Params` converts them by the type each method expects.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from email.message import Message as HeaderBlock
from typing import Any
from urllib.parse import parse_qsl

from sandbox.records import JSON, bad_request


@dataclass(frozen=True)
class Upload:
    """One uploaded file part."""

    filename: str | None
    content_type: str | None
    data: bytes


def _header_params(value: str) -> HeaderBlock:
    block = HeaderBlock()
    block["Content-Type"] = value
    return block


def decode_request(content_type: str | None, body: bytes, query: str) -> tuple[JSON, dict[str, Upload]]:
    """The parameters and the uploaded files of one request (query-string values first, body wins)."""
    params: JSON = dict(parse_qsl(query, keep_blank_values=True))
    files: dict[str, Upload] = {}
    header = _header_params(content_type or "application/octet-stream")
    kind = header.get_content_type()
    if not body:
        return params, files
    if kind == "application/json":
        try:
            decoded = json.loads(body)
        except ValueError as error:
            raise bad_request(f"can't parse JSON body: {error}") from error
        if not isinstance(decoded, dict):
            raise bad_request("JSON body must be an object")
        params.update(decoded)
    elif kind == "application/x-www-form-urlencoded":
        params.update(parse_qsl(body.decode(), keep_blank_values=True))
    elif kind == "multipart/form-data":
        boundary = header.get_param("boundary")
        if not isinstance(boundary, str) or not boundary:
            raise bad_request("multipart body without boundary")
        for name, upload in _multipart_parts(body, boundary.encode()):
            if upload.filename is None:
                params[name] = upload.data.decode()
            else:
                files[name] = upload
    else:
        raise bad_request(f"unsupported Content-Type {kind}")
    return params, files


def _multipart_parts(body: bytes, boundary: bytes) -> list[tuple[str, Upload]]:
    """Splits a multipart/form-data body byte-exactly (file contents may hold any bytes)."""
    parts = []
    delimiter = b"--" + boundary
    for chunk in body.split(delimiter)[1:]:
        if chunk.startswith(b"--"):
            break
        head, separator, content = chunk.removeprefix(b"\r\n").partition(b"\r\n\r\n")
        if not separator:
            raise bad_request("malformed multipart part")
        headers = HeaderBlock()
        for line in head.decode().split("\r\n"):
            name, _, value = line.partition(":")
            headers[name.strip()] = value.strip()
        disposition = _header_params(headers.get("Content-Disposition", ""))
        field = disposition.get_param("name")
        filename = disposition.get_param("filename")
        if not isinstance(field, str):
            raise bad_request("multipart part without a name")
        parts.append(
            (
                field,
                Upload(
                    filename=filename if isinstance(filename, str) else None,
                    content_type=headers.get("Content-Type"),
                    data=content.removesuffix(b"\r\n"),
                ),
            )
        )
    return parts


class Params:
    """A method's parameters with conversions by expected type; missing or malformed values answer 400."""

    def __init__(self, values: JSON, files: dict[str, Upload]) -> None:
        self.values = values
        self.files = files

    def has(self, name: str) -> bool:
        return self.values.get(name) not in (None, "")

    def integer(self, name: str) -> int:
        value = self.optional_integer(name)
        if value is None:
            raise bad_request(f"{name} is empty")
        return value

    def optional_integer(self, name: str) -> int | None:
        if not self.has(name):
            return None
        value = self.values[name]
        try:
            return int(value)
        except (TypeError, ValueError) as error:
            raise bad_request(f"invalid {name} {value!r}") from error

    def number(self, name: str, default: float) -> float:
        if not self.has(name):
            return default
        try:
            return float(self.values[name])
        except (TypeError, ValueError) as error:
            raise bad_request(f"invalid {name} {self.values[name]!r}") from error

    def text(self, name: str) -> str | None:
        value = self.values.get(name)
        return None if value is None else str(value)

    def flag(self, name: str) -> bool:
        value = self.values.get(name)
        return value is True or str(value).lower() == "true"

    def structure(self, name: str) -> Any:
        """A JSON-typed parameter (reply_markup, media, commands...), sent either decoded or as JSON text."""
        value = self.values.get(name)
        if not isinstance(value, str):
            return value
        try:
            return json.loads(value)
        except ValueError as error:
            raise bad_request(f"can't parse {name} JSON object") from error

    def upload(self, reference: str) -> Upload | None:
        """The file part a parameter refers to: its own part, or the part named by `attach://name`."""
        if reference.startswith("attach://"):
            upload = self.files.get(reference.removeprefix("attach://"))
            if upload is None:
                raise bad_request(f"file {reference} not found in the request")
            return upload
        return self.files.get(reference)
