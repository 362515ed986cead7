"""An object store (S3 or a server that speaks its API) under one ``s3://bucket/prefix``, as the warehouse needs it.

Only operations whose atomicity the warehouse relies on are offered: a single PUT or server-side copy replaces an
object whole (readers get the old or the new object, never a mix), and a conditional PUT (``If-None-Match: *`` to
create, ``If-Match: <etag>`` to replace) succeeds for one writer only. Keys are relative to the prefix, with ``/``.
The endpoint comes from the warehouse's configuration or ``$AWS_ENDPOINT_URL_S3`` / ``$AWS_ENDPOINT_URL``;
credentials from the usual AWS environment variables or files, never from run config.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

OBJECT_STORE_SCHEMES = ("s3", "s3a")
ENDPOINT_ENV_VARS = ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
REGION_ENV_VARS = ("AWS_REGION", "AWS_DEFAULT_REGION")
DEFAULT_REGION = "us-east-1"


def is_object_store_uri(location: str | os.PathLike[str]) -> bool:
    """Whether a warehouse location is an object store URI (``s3://...``) rather than a local folder."""
    return urlsplit(str(location)).scheme in OBJECT_STORE_SCHEMES


@dataclass(frozen=True)
class ObjectStoreSettings:
    """How to reach the object store: an endpoint (empty: AWS itself) and a region."""

    endpoint_url: str = ""
    region: str = ""

    @classmethod
    def from_env(cls, endpoint_url: str = "") -> ObjectStoreSettings:
        """``endpoint_url`` if given, else the standard AWS environment variables (the region always from them)."""
        endpoint = endpoint_url or _first_env(ENDPOINT_ENV_VARS)
        return cls(endpoint_url=endpoint, region=_first_env(REGION_ENV_VARS) or DEFAULT_REGION)

    def polars_options(self) -> dict[str, str]:
        """``storage_options`` for ``pl.scan_parquet("s3://...")``; credentials are read from the environment."""
        options = {"aws_region": self.region}
        if self.endpoint_url:
            options["aws_endpoint_url"] = self.endpoint_url
            if self.endpoint_url.startswith("http://"):
                options["aws_allow_http"] = "true"
        for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
            if os.environ.get(variable):
                options[variable.lower()] = os.environ[variable]  # polars' option is the variable's name in lower case
        return options


@dataclass(frozen=True)
class StoredObject:
    """An object's bytes with its ETag (for a conditional replace) and its age on the server's clock."""

    data: bytes
    etag: str
    last_modified: datetime
    server_now: datetime


class ObjectStore:
    """The objects under one ``s3://bucket/prefix``."""

    def __init__(self, uri: str, settings: ObjectStoreSettings | None = None) -> None:
        if not is_object_store_uri(uri):
            raise ValueError(f"not an object store URI: {uri!r}")
        parts = urlsplit(uri)
        if not parts.netloc:
            raise ValueError(f"no bucket in {uri!r}")
        self.bucket = parts.netloc
        self.prefix = parts.path.strip("/")
        self.settings = settings or ObjectStoreSettings.from_env()
        self.uri = f"s3://{self.bucket}/{self.prefix}".rstrip("/")
        self._fs = _s3_filesystem(self.settings)

    def uri_of(self, key: str) -> str:
        """The ``s3://`` address of a key, as polars, DuckDB or Spark read it."""
        return f"{self.uri}/{key}"

    def _path(self, key: str) -> str:
        return "/".join(part for part in (self.bucket, self.prefix, key) if part)

    def exists(self, key: str) -> bool:
        return bool(self._fs.exists(self._path(key)))

    def read_bytes(self, key: str) -> bytes | None:
        """The object's bytes, or None when it does not exist."""
        try:
            return bytes(self._fs.cat_file(self._path(key)))
        except FileNotFoundError:
            return None

    def read_with_etag(self, key: str) -> StoredObject | None:
        """The object with its ETag and the server's clock, in one request; None when it does not exist."""
        from fsspec.asyn import sync

        try:
            response = self._fs.call_s3("get_object", Bucket=self.bucket, Key=self._key(key))
        except FileNotFoundError:
            return None
        data = sync(self._fs.loop, _read_body, response["Body"])  # the body streams on s3fs's event loop
        date = response["ResponseMetadata"]["HTTPHeaders"].get("date")
        server_now = parsedate_to_datetime(date) if date else response["LastModified"]
        return StoredObject(data, response["ETag"], response["LastModified"], server_now)

    def etag(self, key: str) -> str | None:
        try:
            return str(self._fs.info(self._path(key), refresh=True)["ETag"])
        except FileNotFoundError:
            return None

    def list_tree(self, folder: str) -> list[str]:
        """Keys of every object under a folder key, at any depth, sorted."""
        try:
            found = self._fs.find(self._path(folder))
        except FileNotFoundError:
            return []
        root = self._path("") + "/"
        return sorted(name[len(root):] for name in found)

    def list(self, folder: str) -> list[str]:
        """Keys of the objects directly in a folder key, sorted."""
        try:
            found = self._fs.ls(self._path(folder), detail=True, refresh=True)
        except FileNotFoundError:
            return []
        root = self._path("") + "/"
        return sorted(entry["name"][len(root):] for entry in found if entry["type"] == "file")

    def download(self, key: str, target: Path) -> None:
        """Copy an object to a local file, which appears complete or not at all."""
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.download.tmp")
        try:
            self._fs.get_file(self._path(key), str(tmp))
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)

    def write_bytes(self, key: str, data: bytes) -> None:
        """Replace an object whole (one PUT)."""
        self._fs.pipe_file(self._path(key), data)

    def create(self, key: str, data: bytes) -> str | None:
        """Create an object only if none exists (``If-None-Match: *``); its ETag, or None when it existed."""
        try:
            response = self._fs.pipe_file(self._path(key), data, mode="create")
        except FileExistsError:
            return None
        return str(response["ETag"])

    def replace_if(self, key: str, data: bytes, etag: str) -> str | None:
        """Replace an object only if it is still the one with ``etag``; its new ETag, or None when it changed."""
        try:
            response = self._fs.pipe_file(self._path(key), data, IfMatch=etag)
        except (FileNotFoundError, FileExistsError, OSError) as error:
            if "precondition" in str(error).lower().replace("-", ""):  # 412: "pre-condition", "PreconditionFailed"
                return None
            raise
        return str(response["ETag"])

    def upload(self, source: Path, key: str) -> None:
        """Upload a local file as one object (a multipart upload appears only once complete)."""
        self._fs.put_file(str(source), self._path(key))

    def copy(self, source_key: str, target_key: str, metadata: dict[str, str] | None = None) -> None:
        """Server-side copy; the target is replaced whole, with ``metadata`` (``x-amz-meta-*``) when given."""
        extra = {"Metadata": metadata, "MetadataDirective": "REPLACE"} if metadata is not None else {}
        self._fs.copy(self._path(source_key), self._path(target_key), **extra)

    def metadata(self, key: str) -> dict[str, str] | None:
        """An object's user metadata (``x-amz-meta-*``), or None when it does not exist."""
        try:
            return dict(self._fs.metadata(self._path(key)))
        except FileNotFoundError:
            return None

    def delete(self, key: str) -> None:
        """Remove an object; a missing one is no error."""
        with contextlib.suppress(FileNotFoundError):
            self._fs.rm_file(self._path(key))

    def delete_folder(self, folder: str) -> None:
        """Remove every object under a folder key."""
        for key in self.list(folder):
            self.delete(key)

    def _key(self, key: str) -> str:
        return "/".join(part for part in (self.prefix, key) if part)


def _s3_filesystem(settings: ObjectStoreSettings) -> Any:
    import s3fs  # imported here: a local warehouse never needs it

    client_kwargs: dict[str, str] = {"region_name": settings.region}
    if settings.endpoint_url:
        client_kwargs["endpoint_url"] = settings.endpoint_url
    # No listings cache and no shared instance: another machine may change the bucket at any moment.
    return s3fs.S3FileSystem(client_kwargs=client_kwargs, use_listings_cache=False, skip_instance_cache=True)


async def _read_body(stream: Any) -> bytes:
    async with stream as body:
        return bytes(await body.read())


def _first_env(names: tuple[str, ...]) -> str:
    return next((os.environ[name] for name in names if os.environ.get(name)), "")
