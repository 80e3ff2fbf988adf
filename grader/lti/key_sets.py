"""Platforms' public key sets, kept per platform in this process.

Without a cache every launch, forged ones too, made the service fetch the platform's key set: anyone
could make it hammer an LMS. A set is fetched on first use and kept for MAX_AGE; a launch signed with a
key the kept set lacks (the platform rotated its keys) fetches it again, but at most once per
REFETCH_AFTER for each platform, so forged key ids cost one fetch in that time, not one each.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import requests

from grader.lti.models import Platform

MAX_AGE = 24 * 3600.0  # seconds: a platform's keys change rarely, and a new key id refetches sooner
REFETCH_AFTER = 30.0  # seconds between two fetches of one platform's set


@dataclass
class _Kept:
    url: str
    keys: dict[str, Any]
    fetched_at: float  # time.monotonic()


_lock = threading.Lock()


def _kept_here() -> dict[int, _Kept]:
    """This app's kept sets, by platform id (per app: tests build many apps in one process)."""
    from flask import current_app

    kept: dict[int, _Kept] = current_app.extensions.setdefault("lti_key_sets", {})
    return kept


def _has(keys: dict[str, Any], kid: str | None) -> bool:
    return any(isinstance(k, dict) and k.get("kid") == kid for k in keys.get("keys") or [])


def _stale(kept: _Kept | None, platform: Platform, kid: str | None, now: float) -> bool:
    if kept is None or kept.url != platform.key_set_url or now - kept.fetched_at > MAX_AGE:
        return True
    return not _has(kept.keys, kid) and now - kept.fetched_at >= REFETCH_AFTER


def for_launch(platform: Platform, kid: str | None, session: requests.Session) -> dict[str, Any]:
    """The platform's key set to check a token signed with `kid`; raises requests' errors and ValueError."""
    now = time.monotonic()
    with _lock:
        kept = _kept_here().get(platform.id)
        if not _stale(kept, platform, kid, now):
            assert kept is not None
            return kept.keys
    response = session.get(platform.key_set_url)
    response.raise_for_status()
    keys = response.json()
    if not isinstance(keys, dict) or not isinstance(keys.get("keys"), list):
        raise ValueError("the key set is not a JSON Web Key Set")
    with _lock:
        _kept_here()[platform.id] = _Kept(platform.key_set_url, keys, now)
    return keys
